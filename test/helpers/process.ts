import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

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
  return startProcess(TSX, [join(ROOT, entry), ...args], { PATH: process.env.PATH ?? '', ...env });
}

/**
 * Starts an entry point as `npm run worker` does (`node --import tsx`): one process, no tsx
 * launcher in front of it, so a signal (SIGKILL too) reaches the process doing the work.
 */
export function startNode(entry: string, env: Record<string, string>): RunningProcess {
  return startProcess(process.execPath, ['--import', 'tsx', join(ROOT, entry)], { PATH: process.env.PATH ?? '', ...env });
}

/**
 * Starts an entry point exactly as `npm start` / `npm run worker` / `npm run mcp` do: its compiled
 * JavaScript from .build/, rebuilt first when a source is newer (scripts/run-built.mjs).
 */
export function startBuilt(name: 'serve' | 'worker' | 'mcp', env: Record<string, string>): RunningProcess {
  return startProcess(process.execPath, ['--enable-source-maps', join(ROOT, 'scripts', 'run-built.mjs'), name], { PATH: process.env.PATH ?? '', ...env });
}

/** The directory of the node binary running the tests: the only thing the CLI may find on PATH. */
const NODE_ONLY_PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');

/**
 * Starts the `accounting` executable (package.json "bin") as a user would, with node alone on
 * PATH: no node_modules/.bin, so nothing from the devDependencies can be what makes it work.
 */
export function startCli(args: string[], env: Record<string, string>, cwd = ROOT): RunningProcess {
  return startProcess(process.execPath, [join(ROOT, 'bin', 'accounting.mjs'), ...args], { PATH: NODE_ONLY_PATH, ...env }, cwd);
}

/** Runs the CLI to its end: exit code and both streams. */
export async function runCli(args: string[], env: Record<string, string>, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = startCli(args, env);
  proc.child.stdin!.end(stdin ?? '');
  // 'close', not 'exit': the streams are read to their end before the result is used.
  const [code] = (await once(proc.child, 'close')) as [number];
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/**
 * Runs a README shell block in bash from the checkout, in a process group of its own: stop() ends
 * the whole group (bash, npm and the server npm starts), which a signal to bash alone would not.
 */
export function startProcessInShell(script: string, env: Record<string, string>): RunningProcess {
  return startProcess('bash', ['-euo', 'pipefail', '-c', script], env, ROOT, true);
}

function startProcess(command: string, args: string[], env: Record<string, string>, cwd = ROOT, group = false): RunningProcess {
  const child = spawn(command, args, {
    cwd,
    env: { HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: group,
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
      // 'close', not 'exit': only then has all of stderr been read (the shutdown line is the last one).
      const exited = once(child, 'close');
      if (group) process.kill(-child.pid!, 'SIGTERM');
      else child.kill('SIGTERM');
      await exited;
    },
  };
}
