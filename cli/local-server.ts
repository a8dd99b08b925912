import { readDataDirLock } from '../domain/db/data-dir-lock.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';

/** How long the stdio process waits for the lock holder's health check before ignoring it. */
const PROBE_TIMEOUT_MS = 2_000;

export interface RunningServer {
  pid: number;
  /** Where the holder serves, e.g. `http://127.0.0.1:3000`. */
  url: string;
}

/**
 * The server holding this embedded DATA_DIR, when one does and answers its health check: the data
 * directory's lock names its holder and, once a server listens, its URL. A stdio MCP process
 * started on the same directory bridges to that server's /mcp instead of being refused
 * (cli/mcp.ts). Null when the directory is free, held by a process that serves no HTTP (another
 * stdio process), or the recorded server does not answer.
 */
export async function runningServer(dataDir: string): Promise<RunningServer | null> {
  const holder = readDataDirLock(dataDir);
  if (!holder?.url) return null;
  try {
    const response = await fetch(`${holder.url}${API_PREFIX}/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.ok ? { pid: holder.pid, url: holder.url } : null;
  } catch {
    return null;
  }
}
