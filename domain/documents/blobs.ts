import type { OperationContext } from '../context.ts';

/**
 * The bytes of a company's documents, one row per (company, SHA-256): uploading a file twice
 * stores it once. Upload holds the row with a key-share lock until its document row commits; a
 * delete locks it for update before deciding whether any document still uses it. So the two
 * never cross: an upload either waits for the delete and stores the bytes anew, or the delete
 * waits and then sees the new document and keeps them.
 */

export interface BlobInput {
  sha256: string;
  bytes: Buffer;
  contentType: string;
}

/*
 * Bytes travel as hex text, decoded and encoded by the database: a bytea parameter or column
 * through the Prisma adapters took 20 s (PGlite) and 2 s (PostgreSQL) per 20 MiB here, hex text
 * 2.9 s and 1.6 s, and reading it back under a second on both.
 */

// Two rounds suffice: a delete can take the row away only between our insert attempt and our lock.
const HOLD_ATTEMPTS = 3;

/** Makes sure the blob exists and holds it for this transaction. The bytes are sent only when it is new. */
export async function holdBlob(ctx: OperationContext, companyId: string, blob: BlobInput): Promise<void> {
  for (let attempt = 0; attempt < HOLD_ATTEMPTS; attempt++) {
    const held = await ctx.db.$queryRaw<{ sha256: string }[]>`
      SELECT sha256 FROM document_blobs WHERE company_id = ${companyId}::uuid AND sha256 = ${blob.sha256} FOR KEY SHARE`;
    if (held.length > 0) return;
    await ctx.db.$executeRaw`
      INSERT INTO document_blobs (company_id, sha256, content, size_bytes, content_type)
      VALUES (${companyId}::uuid, ${blob.sha256}, decode(${blob.bytes.toString('hex')}, 'hex'), ${blob.bytes.length}, ${blob.contentType})
      ON CONFLICT (company_id, sha256) DO NOTHING`;
  }
  throw new Error(`document blob ${blob.sha256} kept disappearing while being stored`);
}

/** Deletes the blob once no document of the company uses it. */
export async function releaseBlob(ctx: OperationContext, companyId: string, sha256: string): Promise<void> {
  await ctx.db.$queryRaw`SELECT 1 FROM document_blobs WHERE company_id = ${companyId}::uuid AND sha256 = ${sha256} FOR UPDATE`;
  await ctx.db.$executeRaw`
    DELETE FROM document_blobs b
     WHERE b.company_id = ${companyId}::uuid AND b.sha256 = ${sha256}
       AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.company_id = b.company_id AND d.sha256 = b.sha256)`;
}

/** The bytes, or null when no such blob exists (any more). */
export async function readBlob(ctx: OperationContext, companyId: string, sha256: string): Promise<Buffer | null> {
  const [row] = await ctx.db.$queryRaw<{ content: string }[]>`
    SELECT encode(content, 'hex') AS content FROM document_blobs WHERE company_id = ${companyId}::uuid AND sha256 = ${sha256}`;
  return row ? Buffer.from(row.content, 'hex') : null;
}
