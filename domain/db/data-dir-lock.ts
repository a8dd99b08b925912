import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded database belongs to one process: PGlite has no locking of its own, and two
 * processes writing one data directory silently lose writes. The first process to start takes this
 * lock (a file created exclusively, holding its PID); any other is refused with who holds it.
 * A holder that died without releasing (kill -9) is detected by its PID no longer running.
 */

export const LOCK_FILE = 'embedded.lock';

export interface LockHolder {
  pid: number;
  /** What the holder runs, e.g. `npm start` or `npm run mcp`. */
  command: string;
  /** Set once a server listens: where a second client could go instead (its /mcp, its API). */
  url?: string;
  since: string;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`The embedded database in ${dataDir} is in use by process ${holder.pid} (${holder.command}).`);
  }
}

export interface DataDirLock {
  /** Records facts for a second process to read, e.g. the URL the holder serves. */
  update(fields: Partial<Pick<LockHolder, 'url'>>): void;
  release(): void;
}

const lockPath = (dataDir: string): string => join(dataDir, LOCK_FILE);

/** The current holder, or null when the directory is free (or its holder is gone). */
export function readDataDirLock(dataDir: string): LockHolder | null {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as LockHolder;
  } catch {
    return null;
  }
  return Number.isInteger(holder.pid) && isRunning(holder.pid) ? holder : null;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user — still running.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string, command: string): DataDirLock {
  const path = lockPath(dataDir);
  let holder: LockHolder = { pid: process.pid, command, since: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx'); // atomic: exactly one process creates it
      writeSync(fd, JSON.stringify(holder));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readDataDirLock(dataDir);
      if (current && current.pid !== process.pid) throw new DataDirLockedError(dataDir, current);
      // Stale: its holder died without releasing. Remove it and try once more.
      if (attempt > 0) throw error;
      unlinkSync(path);
    }
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    // Only our own lock: never remove one a successor took after a stale takeover.
    if (readDataDirLock(dataDir)?.pid === process.pid) unlinkSync(path);
  };
  // A process that exits without closing the database still frees the directory.
  process.once('exit', release);
  return {
    update(fields) {
      holder = { ...holder, ...fields };
      if (!released) writeFileSync(path, JSON.stringify(holder));
    },
    release,
  };
}
