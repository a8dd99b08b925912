import { ConfigError } from '../domain/kernel/config.ts';
import { DataDirLockedError } from '../domain/db/data-dir-lock.ts';

/**
 * Every way start-up can fail, as the one line an operator reads (never a stack trace): what went
 * wrong and what to do instead.
 */
export interface ListenContext {
  port?: number;
  host?: string;
  /** The settings that chose them, named in the advice (default PORT and HOST). */
  settings?: { port: string; host: string };
}

export function describeStartupFailure(error: unknown, context: ListenContext = {}): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof DataDirLockedError) {
    const { holder } = error;
    const instead = holder.url
      ? `use that server instead (point your MCP client at ${holder.url}/mcp, or your API client at ${holder.url}/api/v1), or stop it first`
      : 'stop it first';
    return `${error.message} Only one process may open the embedded database: ${instead}. For several processes, use PostgreSQL (DATABASE_URL).`;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${context.host ?? 'localhost'}:${context.port ?? '?'}`;
  const { port, host } = context.settings ?? { port: 'PORT', host: 'HOST' };
  if (code === 'EADDRINUSE') return `Port ${where} is already in use (another server?): stop it, or set ${port} to a free port.`;
  if (code === 'EACCES') return `Not allowed to listen on ${where}: choose a ${port} above 1023, or run with the needed permission.`;
  if (code === 'EADDRNOTAVAIL') return `Cannot listen on ${where}: ${host} is not an address of this machine.`;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') {
    return `Cannot reach the database (${code}): check DATABASE_URL, DATABASE_ANON_URL and DATABASE_DIRECT_URL (if set), and that PostgreSQL is running.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Start-up failed: ${message.split('\n')[0]}${code ? ` (${code})` : ''}`;
}
