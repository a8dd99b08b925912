import type { SqlClient } from './sql.ts';

/**
 * Stored files (document blobs, operation inputs) as ordered rows of at most STORED_CHUNK_BYTES
 * each, written as they are read and read back a few rows at a time, so neither an upload nor a
 * download ever holds a whole file (issue 28). Readers depend only on the order of `seq`, never
 * on the size, so the constant can change without rewriting what is stored.
 */

/**
 * 256 KiB: large enough that a 20 MiB file is 80 statements (each round trip is a small share of
 * its bytes' cost), small enough that eight concurrent uploads hold a few MiB between them.
 */
export const STORED_CHUNK_BYTES = 256 * 1024;

/** Chunks one read statement fetches: a download holds this many (1 MiB) at most. */
export const READ_AHEAD_CHUNKS = 4;

/** The stored rows ended before the file did: it does not exist, or was deleted while being read. */
export class StoredContentMissing extends Error {}

/**
 * Inserts `pieces` (each at most STORED_CHUNK_BYTES, in order) with one statement each, then runs
 * the file's completeness check (`checkComplete`: SET CONSTRAINTS … IMMEDIATE). `insert` takes the
 * key's parameters first, then `seq` and the bytes: the bare driver sends them as a
 * binary bytea parameter (node-postgres) or through PGlite's own serializer — never Prisma's
 * bytea path, which took 20 s per 20 MiB on PGlite. Returns the number of chunks written.
 */
export async function writeChunks(
  sql: SqlClient,
  statements: { insert: string; checkComplete: string },
  key: readonly unknown[],
  pieces: AsyncIterable<Uint8Array>,
): Promise<number> {
  let seq = 0;
  for await (const piece of pieces) {
    await sql.query(statements.insert, [...key, seq, piece]);
    seq++;
  }
  // The completeness triggers are deferred to commit, and a failed COMMIT inside a Prisma
  // transaction on PGlite is swallowed by its adapter (the rows vanish, the caller hears success):
  // so they run now, as a statement whose error reaches the caller on both engines.
  await sql.query(statements.checkComplete);
  return seq;
}

/**
 * The bytes of one read row: a chunk travels as pieces this size, so the text the driver decodes
 * per field (hex, twice the bytes) stays under V8's large-object size (128 KiB) and dies young.
 * Read whole, every 256 KiB chunk became a 512 KiB string in the large-object space, freed only
 * by a full collection: eight concurrent 20 MiB downloads grew the server by 220 MB.
 */
export const READ_PIECE_BYTES = 32 * 1024;

/**
 * The stored bytes in order, READ_AHEAD_CHUNKS chunks per statement by key range, each statement
 * on its own (no transaction held while a slow client reads). `select` takes the key's
 * parameters, then the first `seq`, the number of chunks and READ_PIECE_BYTES, and returns each
 * chunk's pieces in order as (`seq`, `data`). Throws StoredContentMissing when the rows end before
 * `size` bytes or skip a `seq` — no such file, or deleted while being read.
 */
export async function* readChunks(sql: SqlClient, select: string, key: readonly unknown[], size: number): AsyncIterable<Uint8Array> {
  let next = 0;
  let read = 0;
  while (read < size) {
    const rows = await sql.query<{ seq: number; data: Uint8Array }>(select, [...key, next, READ_AHEAD_CHUNKS, READ_PIECE_BYTES]);
    if (rows.length === 0) break;
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq === next) next++;
      else if (seq !== next - 1) throw new StoredContentMissing(`stored content skips chunk ${next}`);
      read += row.data.byteLength;
      yield row.data;
    }
  }
  if (read !== size) throw new StoredContentMissing(`stored content ended after ${read} of ${size} bytes`);
}
