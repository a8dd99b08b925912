import { AttachDocumentBody, Document } from '../../../domain/documents/schemas.ts';
import { attachedDocumentExample } from '../../../domain/documents/examples.ts';
import { attachDocument as attach } from '../../../domain/documents/attachments.ts';
import { ENTRY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { DocumentParams, documentParamsExample } from './params.ts';

export const attachDocument = defineOperation({
  id: 'attachDocument',
  group: 'documents',
  method: 'POST',
  path: '/companies/{companyId}/documents/{documentId}/attachments',
  summary: 'Attach a document to a journal entry',
  description:
    'Makes the document evidence (underlag) for a draft or committed journal entry of the same company; a document may back several entries. ' +
    'Attaching it again changes nothing. Once the entry is committed the document stays.',
  emits: ['document.attached'],
  errors: [],
  auth: { scope: 'documents:write' },
  risk: 'L1',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'document',
  input: { params: DocumentParams, body: AttachDocumentBody },
  output: Document,
  status: 200,
  examples: { params: documentParamsExample, body: { journal_entry_id: ENTRY_ID }, response: attachedDocumentExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await attach(ctx, params.companyId, params.documentId, body.journal_entry_id) }),
});
