import type { OperationContext } from '../context.ts';
import { inPiecesOf, type ByteSource } from '../kernel/byte-source.ts';
import { readChunks, STORED_CHUNK_BYTES, writeChunks } from '../db/chunks.ts';

/**
 * The bytes of a company's documents, one blob per (company, SHA-256): uploading a file twice
 * stores it once. A blob row holds the file's facts and document_blob_chunks its bytes, in order
 * (domain/db/chunks.ts), written as the upload is read and read back a few chunks at a time.
 * Upload holds the row with a key-share lock until its document row commits; a delete locks it
 * for update before deciding whether any document still uses it. So the two never cross: an
 * upload either waits for the delete and stores the bytes anew, or the delete waits and then
 * sees the new document and keeps them.
 */

export interface BlobInput {
  content: ByteSource;
  contentType: string;
}

const INSERT_CHUNK = 'INSERT INTO document_blob_chunks (company_id, sha256, seq, data) VALUES ($1::uuid, $2, $3, $4)';
const CHUNK_STATEMENTS = { insert: INSERT_CHUNK, checkComplete: 'SET CONSTRAINTS document_blobs_complete, document_blob_chunks_complete IMMEDIATE' };
const SELECT_CHUNKS = `SELECT c.seq, substring(c.data FROM p.n * $5::int + 1 FOR $5::int) AS data
  FROM document_blob_chunks c CROSS JOIN LATERAL generate_series(0, (octet_length(c.data) - 1) / $5::int) AS p(n)
 WHERE c.company_id = $1::uuid AND c.sha256 = $2 AND c.seq >= $3::int AND c.seq < $3::int + $4::int
 ORDER BY c.seq, p.n`;

// Two rounds suffice: a delete can take the row away only between our insert attempt and our lock.
const HOLD_ATTEMPTS = 3;

/** Makes sure the blob exists and holds it for this transaction. The bytes are read and sent only when it is new. */
export async function holdBlob(ctx: OperationContext, companyId: string, blob: BlobInput): Promise<void> {
  const { sha256, size } = blob.content;
  for (let attempt = 0; attempt < HOLD_ATTEMPTS; attempt++) {
    const held = await ctx.db.$queryRaw<{ sha256: string }[]>`
      SELECT sha256 FROM document_blobs WHERE company_id = ${companyId}::uuid AND sha256 = ${sha256} FOR KEY SHARE`;
    if (held.length > 0) return;
    // A concurrent upload of the same bytes waits here for ours to commit, then finds the blob above.
    const inserted = await ctx.db.$executeRaw`
      INSERT INTO document_blobs (company_id, sha256, size_bytes, content_type)
      VALUES (${companyId}::uuid, ${sha256}, ${size}, ${blob.contentType})
      ON CONFLICT (company_id, sha256) DO NOTHING`;
    if (inserted === 1) {
      // Ours until commit, which checks the chunks add up to size_bytes (document_blobs_complete).
      await writeChunks(ctx.services.database.sqlFor(ctx.db), CHUNK_STATEMENTS, [companyId, sha256], inPiecesOf(blob.content.read(), STORED_CHUNK_BYTES));
      return;
    }
  }
  throw new Error(`document blob ${sha256} kept disappearing while being stored`);
}

/** Deletes the blob (its chunks go with it) once no document of the company uses it. */
export async function releaseBlob(ctx: OperationContext, companyId: string, sha256: string): Promise<void> {
  await ctx.db.$queryRaw`SELECT 1 FROM document_blobs WHERE company_id = ${companyId}::uuid AND sha256 = ${sha256} FOR UPDATE`;
  await ctx.db.$executeRaw`
    DELETE FROM document_blobs b
     WHERE b.company_id = ${companyId}::uuid AND b.sha256 = ${sha256}
       AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.company_id = b.company_id AND d.sha256 = b.sha256)`;
}

/**
 * The blob's `size` bytes in order, a few chunks per statement; throws StoredContentMissing when
 * the rows end early (no such blob, or deleted while being read).
 */
export function readBlob(ctx: OperationContext, companyId: string, sha256: string, size: number): AsyncIterable<Uint8Array> {
  return readChunks(ctx.services.database.sqlFor(ctx.db), SELECT_CHUNKS, [companyId, sha256], size);
}
