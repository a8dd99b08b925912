import type { Db } from '../db/client.ts';

/** The persisted result of one attempt, one element of the batched outcome statement. */
export interface AttemptRecord {
  id: string;
  status: 'delivered' | 'failed' | 'dead';
  next_attempt_at: string | null;
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
  last_error: string | null;
  dead_reason: string | null;
  started_at: string;
  finished_at: string;
  error_class: string | null;
  /**
   * False for a row that waits without having been sent (an undecryptable secret): its attempts
   * stay as they are, so waiting can never exhaust the retry schedule, and no attempt is logged.
   */
  counted: boolean;
  /**
   * The row's attempts when it was claimed: which claim this outcome belongs to. A stuck recovery
   * counts an attempt, so an outcome recorded late (retried after the database came back) never
   * lands on a row that was recovered, or recovered and claimed again, in the meantime.
   */
  claimed_attempts: number;
}

/**
 * One statement for a whole batch: update every delivery row and append its attempt (a counted
 * one). Rows no longer in the claim the outcome belongs to (recovered meanwhile) are left alone and
 * log no attempt, so recording the same batch again is harmless. Returns the attempts logged.
 */
export async function recordOutcomes(db: Db, records: readonly AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  return db.$executeRaw`
    WITH o AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(
        id uuid, status text, next_attempt_at timestamptz, response_status int, response_body text,
        response_headers jsonb, last_error text, dead_reason text, started_at timestamptz,
        finished_at timestamptz, error_class text, counted boolean, claimed_attempts int)
    ), updated AS (
      UPDATE webhook_deliveries d
         SET status = o.status,
             attempts = d.attempts + CASE WHEN o.counted THEN 1 ELSE 0 END,
             next_attempt_at = COALESCE(o.next_attempt_at, d.next_attempt_at),
             response_status = o.response_status,
             response_body = o.response_body,
             response_headers = o.response_headers,
             last_error = o.last_error,
             dead_reason = o.dead_reason
        FROM o
       WHERE d.id = o.id AND d.status = 'in_flight' AND d.attempts = o.claimed_attempts
      RETURNING d.id, d.attempts
    )
    INSERT INTO webhook_delivery_attempts
      (delivery_id, attempt_number, outcome, started_at, finished_at, response_status, error_class, response_body)
    SELECT o.id, u.attempts, o.status, o.started_at, o.finished_at, o.response_status, o.error_class, o.response_body
      FROM o JOIN updated u ON u.id = o.id
     WHERE o.counted`;
}
