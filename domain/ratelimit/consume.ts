import type { Db } from '../db/client.ts';

export const RATE_LIMIT_WINDOW_MS = 60_000; // the spec's fixed one-minute window
export const RETRY_AFTER_SECONDS = 60; // spec Limits: always 60, not the seconds remaining

export interface RateLimitDecision {
  allowed: boolean;
  count: number;
}

/**
 * Counts one request against the key's current fixed window. The upsert is atomic in the
 * database, so every process sharing it sees one counter per (key, window).
 */
export async function consumeRateLimit(db: Db, apiKeyId: string, limit: number, now: Date): Promise<RateLimitDecision> {
  const windowStart = new Date(Math.floor(now.getTime() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS);
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limit_windows (api_key_id, window_start, count)
    VALUES (${apiKeyId}::uuid, ${windowStart}, 1)
    ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
    RETURNING count`;
  const count = Number(rows[0]?.count ?? 1);
  if (count === 1) {
    // First request of a new window: the key's older windows can go (keeps the table small).
    await db.$executeRaw`DELETE FROM rate_limit_windows WHERE api_key_id = ${apiKeyId}::uuid AND window_start < ${windowStart}`;
  }
  return { allowed: count <= limit, count };
}
