import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/** A server process started with stdout and stderr piped (its start-up line names its port). */
export type PipedServer = ChildProcessByStdio<null, Readable, Readable>;

/**
 * Waits for a `cli/serve.ts` process's start-up line (`"port":N`, on either stream) and resolves
 * with the port and everything it printed so far and later. Both streams are read to their end: a
 * full pipe would stall the server.
 */
export function listeningPort(child: PipedServer): Promise<{ port: number; output: () => string }> {
  let out = '';
  return new Promise((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /"port":(\d+)/.exec(out);
        if (match) resolve({ port: Number(match[1]), output: () => out });
      });
    }
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening:\n${out}`)));
  });
}
