import { Document } from '../../../domain/documents/schemas.ts';
import { DOCUMENT_CONTENT_TYPES } from '../../../domain/documents/content-type.ts';
import { attachedDocumentExample } from '../../../domain/documents/examples.ts';
import { getDocumentContent } from '../../../domain/documents/documents.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { DocumentParams, documentParamsExample } from './params.ts';

export const downloadDocument = defineOperation({
  id: 'downloadDocument',
  group: 'documents',
  method: 'GET',
  path: '/companies/{companyId}/documents/{documentId}/content',
  summary: 'Download a document',
  description:
    'The document’s bytes with their exact Content-Type, as an attachment; ETag is the SHA-256, so If-None-Match answers 304. ' +
    'Over MCP: the metadata, and the content as an embedded resource for files up to 1 MiB.',
  errors: [],
  auth: { scope: 'documents:read' },
  ...READ_ONLY,
  input: { params: DocumentParams },
  output: Document,
  binaryResponse: { contentTypes: DOCUMENT_CONTENT_TYPES },
  status: 200,
  examples: { params: documentParamsExample, response: attachedDocumentExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => {
    const { document, read } = await getDocumentContent(ctx, params.companyId, params.documentId);
    return {
      data: document,
      file: { contentType: document.content_type, filename: document.filename, size: document.size_bytes, etag: document.sha256, read },
    };
  },
});
