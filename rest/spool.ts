import { createWriteStream, mkdtempSync, type WriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where an upload's bytes wait while they stream in: in memory up to SPOOL_MEMORY_BYTES (most
 * receipts), then in a private temporary file. So a refused upload — too large, a second file, a
 * broken form — costs at most that much memory however far it got, and only an accepted file is
 * ever held whole, once.
 */
export const SPOOL_MEMORY_BYTES = 1024 * 1024;

export class Spool {
  private chunks: Buffer[] = [];
  private size = 0;
  private disk: { dir: string; path: string; stream: WriteStream } | null = null;

  /** Adds bytes; false when the caller should wait for `drained()` before sending more. */
  write(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (!this.disk && this.size <= SPOOL_MEMORY_BYTES) {
      this.chunks.push(chunk);
      return true;
    }
    if (!this.disk) {
      const dir = mkdtempSync(join(tmpdir(), 'upload-'));
      const path = join(dir, 'file');
      this.disk = { dir, path, stream: createWriteStream(path, { flags: 'wx', mode: 0o600 }) };
      this.disk.stream.on('error', () => {}); // surfaced by bytes(); the spool is disposed either way
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

  /** Every byte written, as one buffer; the temporary file, if any, is gone afterwards. */
  async bytes(): Promise<Buffer> {
    if (!this.disk) return Buffer.concat(this.chunks, this.size);
    try {
      this.disk.stream.end();
      await once(this.disk.stream, 'finish');
      return await readFile(this.disk.path);
    } finally {
      await this.dispose();
    }
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
