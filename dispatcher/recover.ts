import type { Db } from '../domain/db/client.ts';
import { REQUEST_TIMEOUT_MS } from './send.ts';

// Twice the request timeout: a row older than this cannot have a request still running.
export const STUCK_AFTER_MS = 2 * REQUEST_TIMEOUT_MS;

/**
 * Returns in_flight rows abandoned by a crashed dispatcher to `failed`, due now, so the next
 * claim retries them. Runs at the start of every tick (uses the stuck partial index).
 */
export async function recoverStuckDeliveries(db: Db, now: Date): Promise<number> {
  const threshold = new Date(now.getTime() - STUCK_AFTER_MS);
  return db.$executeRaw`
    UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = ${now}, last_error = 'stuck_recovered'
     WHERE status = 'in_flight' AND updated_at < ${threshold}`;
}
