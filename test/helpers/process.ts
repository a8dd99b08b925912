import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

export interface RunningProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first stdout+stderr text matching the pattern. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

/** Starts one of our entry points (cli/*.ts) as a real process with the given environment. */
export function startEntry(entry: string, env: Record<string, string>, args: string[] = []): RunningProcess {
  const child = spawn(TSX, [join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = (out + err).match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    check();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    check();
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        check();
        child.once('exit', (code) => reject(new Error(`process exited (${code}) before ${pattern}:\n${out}\n${err}`)));
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
