import { DEADLINE_MESSAGE } from './sql.ts';

/**
 * The SQLSTATE behind an error from Prisma (driver adapters wrap it in meta.driverAdapterError),
 * node-postgres or PGlite; null when there is none.
 */
export function sqlState(error: unknown): string | null {
  const candidates: unknown[] = [];
  const e = error as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } };
    cause?: { originalCode?: unknown; code?: unknown };
  } | null;
  candidates.push(e?.meta?.driverAdapterError?.cause?.originalCode, e?.meta?.driverAdapterError?.cause?.code, e?.cause?.originalCode, e?.cause?.code, e?.code);
  for (const value of candidates) if (typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value)) return value;
  return null;
}

export const CHECK_VIOLATION = '23514';
export const UNIQUE_VIOLATION = '23505';

/** A unique constraint refused the write (Prisma reports it as P2002, the drivers as 23505). */
export const isUniqueViolation = (error: unknown): boolean => {
  const state = sqlState(error);
  return state === UNIQUE_VIOLATION || state === 'P2002';
};

/**
 * SQLSTATEs that say the server is not serving: class 08 (connection exceptions), 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down,
 * in recovery), 53300 too_many_connections and 57014 query_canceled (our statement_timeout: a
 * database too slow or blocked to answer in time, worth retrying later).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
/** Socket failures reaching the server (Node's error codes). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Prisma's driver-adapter kinds for the same (adapter-pg maps the socket codes to these). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** Prisma's own codes: can't reach, timed out reaching, server closed the connection, no pool connection in time. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/**
 * Said without a distinguishing code: node-postgres's connection that died or could not be made
 * in time, and Prisma's transaction that got no connection within its maxWait (P2028, a code it
 * also uses for transactions that outlived their timeout, hence the message).
 */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Unable to start a transaction in the given time',
  DEADLINE_MESSAGE,
];

/**
 * Whether an error means the database could not be reached or dropped the connection (a restart,
 * a crash, a failover, refused connections) rather than refusing the statement: retrying later can
 * succeed. Reads node-postgres errors and Prisma's wrappings of them alike.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== null && (state.startsWith('08') || UNAVAILABLE_STATES.has(state))) return true;
  const seen = new Set<unknown>();
  for (let e: unknown = error; e !== null && typeof e === 'object' && !seen.has(e); ) {
    seen.add(e);
    const current = e as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: { driverAdapterError?: { cause?: unknown } } };
    if (typeof current.code === 'string' && (SOCKET_CODES.has(current.code) || PRISMA_CODES.has(current.code))) return true;
    if (typeof current.kind === 'string' && ADAPTER_KINDS.has(current.kind)) return true;
    if (typeof current.message === 'string' && CONNECTION_MESSAGES.some((text) => (current.message as string).includes(text))) return true;
    e = current.meta?.driverAdapterError?.cause ?? current.cause;
  }
  return false;
}
