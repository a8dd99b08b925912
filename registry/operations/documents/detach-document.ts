import { detachDocument as detach } from '../../../domain/documents/attachments.ts';
import { defineOperation } from '../../define-operation.ts';
import { AttachmentParams, attachmentParamsExample } from './params.ts';

export const detachDocument = defineOperation({
  id: 'detachDocument',
  group: 'documents',
  method: 'DELETE',
  path: '/companies/{companyId}/documents/{documentId}/attachments/{entryId}',
  summary: 'Detach a document from a draft entry',
  description: 'Removes the document from a draft journal entry’s evidence. A committed entry keeps its documents: reverse the entry to correct the books.',
  auth: { scope: 'documents:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['delete'],
  auditTarget: 'document',
  errors: ['DOCUMENT_IS_EVIDENCE'],
  input: { params: AttachmentParams },
  output: null,
  status: 204,
  examples: { params: attachmentParamsExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => {
    await detach(ctx, params.companyId, params.documentId, params.entryId);
    return { data: null };
  },
});
