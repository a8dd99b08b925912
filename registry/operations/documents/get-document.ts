import { Document } from '../../../domain/documents/schemas.ts';
import { attachedDocumentExample } from '../../../domain/documents/examples.ts';
import { getDocument as get } from '../../../domain/documents/documents.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { DocumentParams, documentParamsExample } from './params.ts';

export const getDocument = defineOperation({
  id: 'getDocument',
  group: 'documents',
  method: 'GET',
  path: '/companies/{companyId}/documents/{documentId}',
  summary: 'Get a document',
  description: 'A document’s metadata: name, detected type, size, SHA-256 and the journal entries it is evidence for. The bytes come from downloadDocument.',
  errors: [],
  auth: { scope: 'documents:read' },
  ...READ_ONLY,
  input: { params: DocumentParams },
  output: Document,
  status: 200,
  examples: { params: documentParamsExample, response: attachedDocumentExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.documentId) }),
});
