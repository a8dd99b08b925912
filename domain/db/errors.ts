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
  candidates.push(
    e?.meta?.driverAdapterError?.cause?.originalCode,
    e?.meta?.driverAdapterError?.cause?.code,
    e?.cause?.originalCode,
    e?.cause?.code,
    e?.code,
  );
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
