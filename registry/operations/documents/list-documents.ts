import { z } from 'zod';
import { Document, DocumentListQuery } from '../../../domain/documents/schemas.ts';
import { attachedDocumentExample } from '../../../domain/documents/examples.ts';
import { listDocuments as list } from '../../../domain/documents/documents.ts';
import { COMPANY_ID, ENTRY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listDocuments = defineOperation({
  id: 'listDocuments',
  group: 'documents',
  method: 'GET',
  path: '/companies/{companyId}/documents',
  summary: 'List documents',
  description:
    'Documents newest upload first, optionally only attached or unattached ones, or those of one journal entry. Cursor-paginated. ' +
    'Unattached documents are receipts still waiting for their entry.',
  errors: [],
  auth: { scope: 'documents:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: DocumentListQuery },
  output: z.object({ documents: z.array(Document) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { journal_entry_id: ENTRY_ID }, response: { documents: [attachedDocumentExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { documents, pagination } = await list(ctx, params.companyId, query);
    return { data: { documents }, pagination };
  },
});
