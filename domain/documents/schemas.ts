import { z } from 'zod';
import { PaginationQuery } from '../kernel/pagination.ts';
import { DOCUMENT_CONTENT_TYPES } from './content-type.ts';

/**
 * The public shape of a document: what the API returns and what `document.*` events carry
 * (DESIGN.md §14: one schema for both), and what callers send beside the file.
 */

export const DocumentId = z.uuid().describe('Document id (uuid), from listDocuments or uploadDocument.');

export const Document = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    filename: z.string().describe('Display name from the upload, without any path or control characters; never a storage path.'),
    description: z.string().nullable().describe('Free text given at upload, e.g. what the receipt is for.'),
    content_type: z.enum(DOCUMENT_CONTENT_TYPES).describe('Detected from the file’s content, not from its name or the client’s word.'),
    size_bytes: z.number().int().positive(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('Hex SHA-256 of the content: the download’s ETag; check it to verify the bytes.'),
    uploaded_at: z.iso.datetime(),
    uploaded_by_api_key_id: z.uuid().nullable().describe('The API key that uploaded it.'),
    journal_entry_ids: z.array(z.uuid()).describe('The journal entries this document is evidence for, earliest attachment first; empty while unattached.'),
  })
  .describe('A document (underlag): a receipt or invoice kept as evidence for journal entries.');
export type Document = z.infer<typeof Document>;

export const DocumentUploadFields = z.strictObject({
  description: z.string().trim().min(1).max(1000).optional().describe('What the document is, e.g. "Kvitto kontorsmaterial".'),
});
export type DocumentUploadFields = z.infer<typeof DocumentUploadFields>;

const BooleanFlag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const DocumentListQuery = z
  .strictObject({
    attached: BooleanFlag.optional().describe('true: only documents attached to an entry; false: only unattached ones.'),
    journal_entry_id: z.uuid().optional().describe('Only the documents attached to this journal entry.'),
  })
  .extend(PaginationQuery.shape);
export type DocumentListQuery = z.infer<typeof DocumentListQuery>;

export const AttachDocumentBody = z.strictObject({
  journal_entry_id: z.uuid().describe('The draft or committed journal entry the document is evidence for (same company), from listJournalEntries.'),
});
export type AttachDocumentBody = z.infer<typeof AttachDocumentBody>;
