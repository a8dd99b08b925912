import { Document, DocumentUploadFields } from '../../../domain/documents/schemas.ts';
import { DOCUMENT_CONTENT_TYPES, MAX_DOCUMENT_BYTES } from '../../../domain/documents/content-type.ts';
import { documentExample } from '../../../domain/documents/examples.ts';
import { uploadDocument as upload } from '../../../domain/documents/documents.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const uploadDocument = defineOperation({
  id: 'uploadDocument',
  group: 'documents',
  method: 'POST',
  path: '/companies/{companyId}/documents',
  summary: 'Upload a document',
  description:
    'Stores a receipt or invoice (PDF, JPEG, PNG, HEIC, TIFF or an XML e-invoice, at most 20 MiB) as evidence to attach to journal entries. ' +
    'The type is read from the content; the file name is kept for display only. The same file uploaded twice is stored once.',
  emits: ['document.uploaded'],
  auth: { scope: 'documents:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'document',
  errors: ['UNSUPPORTED_FILE_TYPE'],
  input: {
    params: CompanyParams,
    body: DocumentUploadFields,
    file: {
      field: 'file',
      maxBytes: MAX_DOCUMENT_BYTES,
      contentTypes: DOCUMENT_CONTENT_TYPES,
      description: 'The document: a PDF, JPEG, PNG, HEIC, TIFF or XML e-invoice, at most 20 MiB.',
      exampleName: 'kvitto.pdf',
    },
  },
  output: Document,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { description: 'Kvitto kontorsmaterial' }, response: documentExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body, file }) => ({
    // The pipeline hands every operation that declares input.file its file.
    data: await upload(ctx, params.companyId, { filename: file!.filename, content: file!.content, description: body.description }),
  }),
});
