import type { OperationContext } from '../context.ts';
import { readChunks, STORED_CHUNK_BYTES, writeChunks } from '../db/chunks.ts';
import { inPiecesOf, type ByteSource } from '../kernel/byte-source.ts';

/**
 * An operation's bulky input (an uploaded SIE file) beside its row: operation_inputs holds its
 * size, operation_input_chunks its bytes in order (domain/db/chunks.ts), written as the upload is
 * read and read back a few chunks at a time, so neither queueing nor running holds the file whole.
 */

const INSERT_CHUNK = 'INSERT INTO operation_input_chunks (company_id, operation_id, seq, data) VALUES ($1::uuid, $2::uuid, $3, $4)';
const CHUNK_STATEMENTS = { insert: INSERT_CHUNK, checkComplete: 'SET CONSTRAINTS operation_inputs_complete, operation_input_chunks_complete IMMEDIATE' };
const SELECT_CHUNKS = `SELECT c.seq, substring(c.data FROM p.n * $5::int + 1 FOR $5::int) AS data
  FROM operation_input_chunks c CROSS JOIN LATERAL generate_series(0, (octet_length(c.data) - 1) / $5::int) AS p(n)
 WHERE c.company_id = $1::uuid AND c.operation_id = $2::uuid AND c.seq >= $3::int AND c.seq < $3::int + $4::int
 ORDER BY c.seq, p.n`;

/** Stores `content` as the input of a just-created operation, in `ctx`'s transaction (its commit checks the chunks add up). */
export async function storeOperationInput(ctx: OperationContext, companyId: string, operationId: string, content: ByteSource): Promise<void> {
  await ctx.db.operationInput.create({ data: { operationId, companyId, sizeBytes: content.size } });
  await writeChunks(ctx.services.database.sqlFor(ctx.db), CHUNK_STATEMENTS, [companyId, operationId], inPiecesOf(content.read(), STORED_CHUNK_BYTES));
}

/**
 * The operation's input, chunk by chunk (at most STORED_CHUNK_BYTES each), a few chunks per
 * statement, where `ctx.db` is (the pool, or an open transaction); nothing when it has none. Throws StoredContentMissing when the operation is deleted
 * while its input is read.
 */
export async function* readOperationInput(ctx: Pick<OperationContext, 'services' | 'db'>, operationId: string): AsyncIterable<Uint8Array> {
  const input = await ctx.db.operationInput.findUnique({ where: { operationId }, select: { companyId: true, sizeBytes: true } });
  if (!input) return;
  yield* readChunks(ctx.services.database.sqlFor(ctx.db), SELECT_CHUNKS, [input.companyId, operationId], input.sizeBytes);
}
