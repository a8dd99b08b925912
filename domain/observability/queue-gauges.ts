import type { Services } from '../context.ts';

/** The backlog as a metrics scrape reports it: webhook deliveries and operations waiting or running. */
export interface QueueGauges {
  /** Deliveries due now and not claimed (every company), counted up to DUE_COUNT_CAP. */
  due: number;
  /** Seconds the oldest due, unclaimed delivery has waited; 0 when none is due. */
  claimLagSeconds: number;
  /** Deliveries claimed and being sent (status in_flight). */
  inFlight: number;
  operationsQueued: number;
  operationsRunning: number;
  /** Deliveries waiting because their webhook secret cannot be decrypted with this key (issue 28). */
  waitingForKey: number;
}

/**
 * Past this many due deliveries the count stops: the gauge then says "at least this many", and a
 * scrape during a huge backlog still reads at most this many index entries.
 */
export const DUE_COUNT_CAP = 100_000;

/**
 * One statement, every part on a partial index, so its cost follows the live backlog and never
 * the delivered or finished history. What is claimable, and the per-company queues, are the
 * claim's own definitions (claimable_webhook_deliveries and claimable_delivery_queues(),
 * prisma/migrations/…_dbfacts_claimable_queues), so the gauges can never count other rows than
 * the claim takes:
 *   due_queues the queues (one probe of the claim index per company) whose oldest row is due:
 *              their oldest is the claim lag;
 *   due        per due queue, a range scan of its due rows (the inner LIMIT keeps the planner from
 *              joining instead, which could read the whole index), stopped at $2;
 *   in_flight  the stuck-recovery index (status = 'in_flight'), bounded by what claimers hold;
 *   queued / running operations: the runner's two partial indexes;
 *   waiting_for_key deliveries whose secret could not be decrypted, on their own partial index
 *              (the function health calls too, prisma/migrations/…_encryption_key_check).
 * Exported so a test can EXPLAIN exactly this text.
 */
export const QUEUE_GAUGES_SQL = `
WITH due_queues AS (
  SELECT company_id, oldest FROM claimable_delivery_queues() WHERE oldest <= $1
)
SELECT
  (SELECT min(oldest) FROM due_queues) AS oldest_due_at,
  (SELECT count(*) FROM (
     SELECT 1
       FROM due_queues q
      CROSS JOIN LATERAL (
        SELECT 1
          FROM claimable_webhook_deliveries d
         WHERE d.company_id = q.company_id AND d.next_attempt_at >= q.oldest AND d.next_attempt_at <= $1
         LIMIT $2
      ) x
      LIMIT $2
   ) capped) AS due,
  (SELECT count(*) FROM webhook_deliveries WHERE status = 'in_flight') AS in_flight,
  (SELECT count(*) FROM operations WHERE status = 'queued') AS operations_queued,
  (SELECT count(*) FROM operations WHERE status = 'running') AS operations_running,
  deliveries_waiting_for_key() AS waiting_for_key`;

interface Row {
  oldest_due_at: Date | null;
  due: bigint;
  in_flight: bigint;
  operations_queued: bigint;
  operations_running: bigint;
  waiting_for_key: bigint;
}

/**
 * Reads the gauges through the bare driver (no Prisma pipeline; a prepared statement on
 * PostgreSQL), as of the services' clock — the one the claim decides "due" with.
 */
export async function readQueueGauges(services: Services, dueCap: number = DUE_COUNT_CAP): Promise<QueueGauges> {
  const now = services.now();
  const [row] = await services.database.sql.query<Row>(QUEUE_GAUGES_SQL, [now, dueCap]);
  if (!row) throw new Error('queue gauges: the statement returned no row');
  const oldest = row.oldest_due_at;
  return {
    due: Number(row.due),
    claimLagSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
    inFlight: Number(row.in_flight),
    operationsQueued: Number(row.operations_queued),
    operationsRunning: Number(row.operations_running),
    waitingForKey: Number(row.waiting_for_key),
  };
}
