import type { Db } from '../db/client.ts';
import type { Services } from '../context.ts';
import { erasePreviousSecretsDue } from './rotation.ts';
import { EXHAUSTED_REASON_PREFIX, MAX_ATTEMPTS, REQUEST_TIMEOUT_MS } from './retry-schedule.ts';

// Twice the request timeout: a row older than this cannot have a request still running.
export const STUCK_AFTER_MS = 2 * REQUEST_TIMEOUT_MS;

/** last_error and the attempt log's error_class of an attempt whose worker died or hung. */
export const STUCK_RECOVERED = 'stuck_recovered';

/**
 * Returns in_flight rows abandoned by a dispatcher that died mid-send (or hung) to `failed`, still
 * due, so the next claim sends them again (at least once). The lost attempt counts: it is added to
 * `attempts` and to the attempt log (from the claim to now), so a row that keeps getting stuck
 * reaches `dead` after MAX_ATTEMPTS instead of looping. One clock, the database's: the claim
 * stamped updated_at with it (trigger), and the threshold is measured with it too. Runs at the
 * start of every tick (uses the stuck partial index); SKIP LOCKED lets concurrent runners share it.
 */
export async function recoverStuckDeliveries(db: Db): Promise<number> {
  return db.$executeRaw`
    WITH stuck AS (
      SELECT id, updated_at AS claimed_at FROM webhook_deliveries
       WHERE status = 'in_flight' AND updated_at < now() - make_interval(secs => ${STUCK_AFTER_MS / 1000})
         FOR UPDATE SKIP LOCKED
    ), recovered AS (
      UPDATE webhook_deliveries d
         SET attempts = d.attempts + 1,
             status = CASE WHEN d.attempts + 1 >= ${MAX_ATTEMPTS} THEN 'dead' ELSE 'failed' END,
             dead_reason = CASE WHEN d.attempts + 1 >= ${MAX_ATTEMPTS} THEN ${EXHAUSTED_REASON_PREFIX + STUCK_RECOVERED} END,
             last_error = ${STUCK_RECOVERED}
        FROM stuck
       WHERE d.id = stuck.id
      RETURNING d.id, d.attempts, d.status, stuck.claimed_at
    )
    INSERT INTO webhook_delivery_attempts (delivery_id, attempt_number, outcome, started_at, finished_at, error_class)
    SELECT id, attempts, status, claimed_at, now(), ${STUCK_RECOVERED} FROM recovered`;
}

/**
 * What runs before each claim round: stuck recovery, and erasing previous secrets whose rotation
 * overlap has ended (on the injected clock, the one rotations were stamped with).
 * Returns the number of recovered deliveries.
 */
export async function runMaintenance(services: Services): Promise<number> {
  const db = services.database.prisma;
  const recovered = await recoverStuckDeliveries(db);
  await erasePreviousSecretsDue(db, services.now());
  return recovered;
}
