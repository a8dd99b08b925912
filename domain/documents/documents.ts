import { z } from 'zod';
import { PrismaSql as Prisma } from '../db/client.ts';
import { CHECK_VIOLATION, sqlState } from '../db/errors.ts';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { readableOf, type ByteSource } from '../kernel/byte-source.ts';
import { StoredContentMissing } from '../db/chunks.ts';
import { DomainError } from '../kernel/errors.ts';
import { entryVisible } from '../ledger/visibility.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimestampSql, type PaginationMeta, keysetPage } from '../kernel/pagination.ts';
import { emitEvent } from '../events/emit.ts';
import { holdBlob, readBlob, releaseBlob } from './blobs.ts';
import { DOCUMENT_CONTENT_TYPES, MAX_DOCUMENT_BYTES, detectDocumentType } from './content-type.ts';
import { sanitizeFilename } from './filename.ts';
import { Document, type DocumentListQuery } from './schemas.ts';
import { booksInstant } from '../kernel/books-dates.ts';

/**
 * Documents: upload, read, list, delete. The bytes are stored once per company and digest, in
 * chunks (blobs.ts); a document row is a named, described use of them that entries can cite.
 */

/** One statement reads a document whole — row, blob facts and attached entries — for get, list and events alike. */
const DOCUMENT_SELECT = Prisma.sql`
  SELECT d.id, d.company_id, d.filename, d.description, b.content_type, b.size_bytes, d.sha256,
         d.uploaded_at, d.uploaded_by_api_key_id,
         ${Prisma.raw(keysetTimestampSql('d.uploaded_at'))} AS uploaded_key,
         coalesce((SELECT json_agg(a.journal_entry_id ORDER BY a.attached_at, a.journal_entry_id)
                     FROM document_attachments a
                    WHERE a.company_id = d.company_id AND a.document_id = d.id), '[]'::json) AS journal_entry_ids
    FROM documents d
    JOIN document_blobs b ON b.company_id = d.company_id AND b.sha256 = d.sha256`;

interface DocumentRow {
  id: string;
  company_id: string;
  filename: string;
  description: string | null;
  content_type: string;
  size_bytes: number;
  sha256: string;
  uploaded_at: Date;
  uploaded_by_api_key_id: string | null;
  uploaded_key: string;
  journal_entry_ids: string[];
}

const toDocument = (row: DocumentRow): Document =>
  Document.parse({
    id: row.id,
    company_id: row.company_id,
    filename: row.filename,
    description: row.description,
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    uploaded_at: row.uploaded_at.toISOString(),
    uploaded_by_api_key_id: row.uploaded_by_api_key_id,
    journal_entry_ids: row.journal_entry_ids,
  });

export const documentNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such document in this company.' });

/** The document as the API shows it, or null. */
export async function readDocument(ctx: OperationContext, companyId: string, documentId: string): Promise<Document | null> {
  const [row] = await ctx.db.$queryRaw<DocumentRow[]>`${DOCUMENT_SELECT} WHERE d.company_id = ${companyId}::uuid AND d.id = ${documentId}::uuid`;
  return row ? toDocument(row) : null;
}

export async function getDocument(ctx: OperationContext, companyId: string, documentId: string): Promise<Document> {
  requireScope(ctx, 'documents:read');
  const document = await readDocument(ctx, companyId, documentId);
  if (!document) throw documentNotFound();
  return document;
}

/** A document's bytes, read only when asked for (a 304 or a too-large MCP result never reads them). */
export interface DocumentContent {
  document: Document;
  /** The bytes as a pull stream, a few chunks per statement as the consumer takes them: never the whole file. */
  read(): Promise<ReadableStream<Uint8Array>>;
}

export async function getDocumentContent(ctx: OperationContext, companyId: string, documentId: string): Promise<DocumentContent> {
  const document = await getDocument(ctx, companyId, documentId);
  return {
    document,
    read: async () => {
      const pieces = readBlob(ctx, companyId, document.sha256, document.size_bytes)[Symbol.asyncIterator]();
      try {
        // The first chunk before answering: deleted since the metadata was read is as gone as an unknown document.
        return readableOf(pieces, await pieces.next());
      } catch (error) {
        if (error instanceof StoredContentMissing) throw documentNotFound();
        throw error;
      }
    },
  };
}

const LIST_NAME = 'documents';
const ListKey = z.object({ at: booksInstant({ precision: 6 }), id: z.uuid() });

/** Newest upload first: (uploaded_at, id) descending, a unique order the keyset cursor follows. */
export async function listDocuments(
  ctx: OperationContext,
  companyId: string,
  query: DocumentListQuery,
): Promise<{ documents: Document[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'documents:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const attachedTo = (entry?: string) => Prisma.sql`EXISTS (SELECT 1 FROM document_attachments a
    WHERE a.company_id = d.company_id AND a.document_id = d.id ${entry ? Prisma.sql`AND a.journal_entry_id = ${entry}::uuid` : Prisma.empty})`;
  const conditions: Prisma.Sql[] = [Prisma.sql`d.company_id = ${companyId}::uuid`];
  if (query.attached === true) conditions.push(attachedTo());
  if (query.attached === false) conditions.push(Prisma.sql`NOT ${attachedTo()}`);
  if (query.journal_entry_id) conditions.push(attachedTo(query.journal_entry_id));
  if (after) conditions.push(Prisma.sql`(d.uploaded_at, d.id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  const rows = await ctx.db.$queryRaw<DocumentRow[]>`
    ${DOCUMENT_SELECT} WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY d.uploaded_at DESC, d.id DESC LIMIT ${query.limit + 1}`;
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { at: last.uploaded_key, id: last.id }));
  return { documents: page.map(toDocument), pagination };
}

export interface UploadInput {
  /** The client's name for the file; kept for display only, sanitised. */
  filename: string | null;
  /** Read piece by piece into chunks, inside the upload's transaction; never held whole. */
  content: ByteSource;
  description?: string | undefined;
}

/**
 * Stores a receipt or invoice: its type read from the bytes (PDF, JPEG, PNG, HEIC, TIFF or XML),
 * its bytes once per company however often it is uploaded, and a document row naming them.
 */
export async function uploadDocument(ctx: OperationContext, companyId: string, input: UploadInput): Promise<Document> {
  const actor = requireScope(ctx, 'documents:write');
  // The surfaces stop reading past this limit already; the rule is the domain's, so it holds here too.
  if (input.content.size > MAX_DOCUMENT_BYTES) throw new DomainError('PAYLOAD_TOO_LARGE', { message: `A document is at most ${MAX_DOCUMENT_BYTES} bytes.` });
  const detected = await detectDocumentType(input.content);
  if (!detected) {
    throw new DomainError('UNSUPPORTED_FILE_TYPE', {
      message: `The file's content is not one of ${DOCUMENT_CONTENT_TYPES.join(', ')}.`,
      details: [{ path: 'body.file', message: 'Content not recognised as an accepted type.' }],
    });
  }
  const { sha256 } = input.content;
  const filename = sanitizeFilename(input.filename, detected.extension);
  return withTransaction(ctx, async (tx) => {
    await holdBlob(tx, companyId, { content: input.content, contentType: detected.contentType });
    const [created] = await tx.db.$queryRaw<{ id: string }[]>`
      INSERT INTO documents (company_id, sha256, filename, description, uploaded_by_api_key_id, uploaded_at)
      VALUES (${companyId}::uuid, ${sha256}, ${filename}, ${input.description ?? null}, ${actor.apiKeyId}::uuid, ${tx.services.now()})
      RETURNING id`;
    const document = (await readDocument(tx, companyId, (created as { id: string }).id)) as Document;
    await emitEvent(tx, companyId, 'document.uploaded', document, null);
    return document;
  });
}

/** Committed entries a document is evidence for, locked against a concurrent change of status. */
export async function committedEntriesOf(ctx: OperationContext, companyId: string, documentId: string): Promise<string[]> {
  const rows = await ctx.db.$queryRaw<{ id: string }[]>`
    SELECT e.id FROM document_attachments a
      JOIN journal_entries e ON e.company_id = a.company_id AND e.id = a.journal_entry_id
     WHERE a.company_id = ${companyId}::uuid AND a.document_id = ${documentId}::uuid AND e.status = 'committed' AND ${entryVisible}
     ORDER BY e.id
       FOR SHARE OF e`;
  return rows.map((row) => row.id);
}

/** Names the committed entries when known (the database's own refusal does not say which). */
export const evidenceError = (entryIds: readonly string[]): DomainError =>
  entryIds.length === 0
    ? new DomainError('DOCUMENT_IS_EVIDENCE')
    : new DomainError('DOCUMENT_IS_EVIDENCE', {
        message: `The document is evidence for committed journal ${entryIds.length === 1 ? 'entry' : 'entries'} ${entryIds.join(', ')} and must be kept.`,
        details: entryIds.map((id) => ({ path: 'journal_entry_ids', message: `Attached to committed entry ${id}.` })),
      });

/**
 * Deletes a document that is evidence for no committed entry (its attachments to drafts go with
 * it), and its bytes when no other document of the company uses them. The database refuses the
 * rest too (document_attachments_guard), so a race with a commit cannot slip through.
 */
export async function deleteDocument(ctx: OperationContext, companyId: string, documentId: string): Promise<void> {
  requireScope(ctx, 'documents:write');
  await withTransaction(ctx, async (tx) => {
    const [locked] = await tx.db.$queryRaw<{ sha256: string }[]>`
      SELECT sha256 FROM documents WHERE company_id = ${companyId}::uuid AND id = ${documentId}::uuid FOR UPDATE`;
    if (!locked) throw documentNotFound();
    const committed = await committedEntriesOf(tx, companyId, documentId);
    if (committed.length > 0) throw evidenceError(committed);
    const last = (await readDocument(tx, companyId, documentId)) as Document;
    try {
      await tx.db.$executeRaw`DELETE FROM documents WHERE company_id = ${companyId}::uuid AND id = ${documentId}::uuid`;
    } catch (error) {
      // The transaction is aborted by now, so no further query: refuse with the catalogue error.
      if (sqlState(error) === CHECK_VIOLATION) throw evidenceError([]);
      throw error;
    }
    await releaseBlob(tx, companyId, locked.sha256);
    await emitEvent(tx, companyId, 'document.deleted', last, null);
  });
}
