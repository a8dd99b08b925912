import { createHash } from 'node:crypto';

/**
 * A file received whole before it is used — an upload a surface spooled, a decoded MCP argument —
 * that the domain reads as a stream of pieces, never as one buffer: its size and SHA-256 were
 * counted as the bytes arrived, so dedupe and limits are decided before anything is read again.
 */
export interface ByteSource {
  readonly size: number;
  /** Lower-case hex SHA-256 of all the bytes. */
  readonly sha256: string;
  /** The bytes from `start` (default 0) to the end, in order, in pieces of any size; may be read any number of times. */
  read(start?: number): AsyncIterable<Uint8Array>;
}

/** Bytes already in memory (an MCP argument, a test) as a ByteSource. */
export function byteSourceOf(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.byteLength,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    async *read(start = 0) {
      if (start < bytes.byteLength) yield bytes.subarray(start);
    },
  };
}

/** Re-cuts a stream into pieces of exactly `size` bytes (the last may be shorter), copying only what straddles a cut. */
export async function* inPiecesOf(source: AsyncIterable<Uint8Array>, size: number): AsyncIterable<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for await (const chunk of source) {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const take = Math.min(size - pendingBytes, chunk.byteLength - offset);
      const part = chunk.subarray(offset, offset + take);
      offset += take;
      if (pendingBytes === 0 && take === size) {
        yield part;
        continue;
      }
      pending.push(part);
      pendingBytes += take;
      if (pendingBytes === size) {
        yield Buffer.concat(pending, size);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

/** At most `length` bytes from `start`: a file's head or tail for sniffing, without reading the rest. */
export async function readSlice(source: ByteSource, start: number, length: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let got = 0;
  for await (const chunk of source.read(start)) {
    const part = chunk.subarray(0, length - got);
    parts.push(part);
    got += part.byteLength;
    if (got >= length) break; // ends the read (closes a spooled file) without pulling the rest
  }
  return Buffer.concat(parts, got);
}

/** Every byte of a stream in one buffer: only for what is bounded and small, or until a consumer streams. */
export async function collectBytes(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of source) parts.push(chunk);
  return Buffer.concat(parts);
}

/**
 * A pull stream over `pieces`: the next piece is read only when the consumer asks for it (an HTTP
 * response pulls as the socket drains), and cancelling ends the iteration. `first`, when given,
 * is a piece already taken from the iterator (to learn before answering that there is content).
 */
export function readableOf(pieces: AsyncIterator<Uint8Array>, first?: IteratorResult<Uint8Array>): ReadableStream<Uint8Array> {
  let pending = first;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = pending ?? (await pieces.next());
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await pieces.return?.();
      },
    },
    // Nothing read ahead of the consumer beyond what one pull fetches.
    { highWaterMark: 0 },
  );
}
