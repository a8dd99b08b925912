import { deleteDocument as remove } from '../../../domain/documents/documents.ts';
import { defineOperation } from '../../define-operation.ts';
import { DocumentParams, documentParamsExample } from './params.ts';

export const deleteDocument = defineOperation({
  id: 'deleteDocument',
  group: 'documents',
  method: 'DELETE',
  path: '/companies/{companyId}/documents/{documentId}',
  summary: 'Delete a document',
  description:
    'Deletes a document that is evidence for no committed journal entry (attachments to drafts go with it); its bytes go once no other document uses them. ' +
    'Refused while a committed entry cites it.',
  emits: ['document.deleted'],
  auth: { scope: 'documents:write' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['delete', 'emits_event'],
  auditTarget: 'document',
  errors: ['DOCUMENT_IS_EVIDENCE'],
  input: { params: DocumentParams },
  output: null,
  status: 204,
  examples: { params: documentParamsExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => {
    await remove(ctx, params.companyId, params.documentId);
    return { data: null };
  },
});
