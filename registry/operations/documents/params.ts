import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { DocumentId } from '../../../domain/documents/schemas.ts';
import { DOCUMENT_ID } from '../../../domain/documents/examples.ts';
import { COMPANY_ID, ENTRY_ID } from '../../../domain/ledger/examples.ts';

export const DocumentParams = z.object({ companyId: CompanyId, documentId: DocumentId });
export const AttachmentParams = z.object({
  companyId: CompanyId,
  documentId: DocumentId,
  entryId: z.uuid().describe('The journal entry the document is attached to (one of the document’s journal_entry_ids).'),
});

export const documentParamsExample = { companyId: COMPANY_ID, documentId: DOCUMENT_ID };
export const attachmentParamsExample = { ...documentParamsExample, entryId: ENTRY_ID };
