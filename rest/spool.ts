import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ByteSource } from '../domain/kernel/byte-source.ts';

/**
 * Where an upload's bytes wait while they stream in: in memory up to SPOOL_MEMORY_BYTES (most
 * receipts), then in a private temporary file, their SHA-256 counted on the way. So a refused
 * upload — too large, a second file, a broken form — costs at most that much memory however far
 * it got, and an accepted file is handed on as a ByteSource the domain reads piece by piece (from
 * the file, 64 KiB at a time): never held whole (issue 28).
 */
export const SPOOL_MEMORY_BYTES = 1024 * 1024;

/** A finished spool's bytes; `dispose()` once the request is answered removes the temporary file. */
export interface SpooledFile extends ByteSource {
  dispose(): Promise<void>;
}

export class Spool {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly hash = createHash('sha256');
  private disk: { dir: string; path: string; stream: WriteStream } | null = null;

  /** Adds bytes; false when the caller should wait for `drained()` before sending more. */
  write(chunk: Buffer): boolean {
    this.size += chunk.length;
    this.hash.update(chunk);
    if (!this.disk && this.size <= SPOOL_MEMORY_BYTES) {
      this.chunks.push(chunk);
      return true;
    }
    if (!this.disk) {
      const dir = mkdtempSync(join(tmpdir(), 'upload-'));
      const path = join(dir, 'file');
      this.disk = { dir, path, stream: createWriteStream(path, { flags: 'wx', mode: 0o600 }) };
      this.disk.stream.on('error', () => {}); // surfaced by finish(); the spool is disposed either way
      this.disk.stream.write(Buffer.concat(this.chunks));
      this.chunks = [];
    }
    return this.disk.stream.write(chunk);
  }

  /** Resolves when the file takes more bytes, or can never take any again (never rejects: bytes() reports failures). */
  drained(): Promise<void> {
    const stream = this.disk?.stream;
    if (!stream?.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        for (const event of ['drain', 'close', 'error']) stream.off(event, done);
        resolve();
      };
      for (const event of ['drain', 'close', 'error']) stream.on(event, done);
    });
  }

  /**
   * Every byte written, readable as often as needed until `dispose()`: from memory, or from the
   * temporary file (a stream per read). A failure to finish the file disposes the spool.
   */
  async finish(): Promise<SpooledFile> {
    const size = this.size;
    const sha256 = this.hash.digest('hex');
    const dispose = () => this.dispose();
    if (!this.disk) {
      const chunks = this.chunks;
      return { size, sha256, dispose, read: (start = 0) => fromMemory(chunks, start) };
    }
    const { path, stream } = this.disk;
    try {
      stream.end();
      await once(stream, 'finish');
    } catch (error) {
      await this.dispose();
      throw error;
    }
    return {
      size,
      sha256,
      dispose,
      // Ends at the file's end; a piece is a fresh Buffer the stream no longer touches.
      read: (start = 0) => createReadStream(path, { start }) as AsyncIterable<Buffer>,
    };
  }

  /** Forgets the bytes and removes the temporary file. Safe to call more than once. */
  async dispose(): Promise<void> {
    this.chunks = [];
    const disk = this.disk;
    this.disk = null;
    if (!disk) return;
    disk.stream.destroy();
    await rm(disk.dir, { recursive: true, force: true });
  }
}

async function* fromMemory(chunks: readonly Buffer[], start: number): AsyncIterable<Uint8Array> {
  let skip = start;
  for (const chunk of chunks) {
    if (skip >= chunk.length) {
      skip -= chunk.length;
      continue;
    }
    yield chunk.subarray(skip);
    skip = 0;
  }
}
