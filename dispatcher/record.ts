import { randomUUID } from 'node:crypto';
import type { Db } from '../domain/db/client.ts';
import { buildEventPayload, DELIVERY_CHANNEL } from '../domain/events/emit.ts';
import { API_VERSION } from '../domain/kernel/version.ts';

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
}

/**
 * One statement for a whole batch: update every delivery row and append its attempt. Rows no
 * longer in_flight (recovered meanwhile) are left alone and log no attempt.
 */
export async function recordOutcomes(db: Db, records: readonly AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  return db.$executeRaw`
    WITH o AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(
        id uuid, status text, next_attempt_at timestamptz, response_status int, response_body text,
        response_headers jsonb, last_error text, dead_reason text, started_at timestamptz,
        finished_at timestamptz, error_class text)
    ), updated AS (
      UPDATE webhook_deliveries d
         SET status = o.status,
             attempts = d.attempts + 1,
             next_attempt_at = COALESCE(o.next_attempt_at, d.next_attempt_at),
             response_status = o.response_status,
             response_body = o.response_body,
             response_headers = o.response_headers,
             last_error = o.last_error,
             dead_reason = o.dead_reason
        FROM o
       WHERE d.id = o.id AND d.status = 'in_flight'
      RETURNING d.id, d.attempts
    )
    INSERT INTO webhook_delivery_attempts
      (delivery_id, attempt_number, outcome, started_at, finished_at, response_status, error_class, response_body)
    SELECT o.id, u.attempts, o.status, o.started_at, o.finished_at, o.response_status, o.error_class, o.response_body
      FROM o JOIN updated u ON u.id = o.id`;
}

export interface WebhookDisable {
  webhookId: string;
  companyId: string;
  livemode: boolean;
  eventType: string;
  webhookUrl: string;
  reason: string;
}

/**
 * One statement for all webhooks a batch disabled (410 or unsafe URL): disable each (if still
 * enabled), write its webhook.disabled event and fan it out to the company's subscribers.
 */
export async function disableWebhooks(db: Db, disables: readonly WebhookDisable[], now: Date): Promise<number> {
  if (disables.length === 0) return 0;
  const rows = disables.map((d) => {
    const eventId = randomUUID();
    const object = {
      id: d.webhookId,
      company_id: d.companyId,
      event_type: d.eventType,
      webhook_url: d.webhookUrl,
      disabled_at: now.toISOString(),
      disabled_reason: d.reason,
    };
    const payload = buildEventPayload({
      eventId,
      type: 'webhook.disabled',
      companyId: d.companyId,
      livemode: d.livemode,
      object,
      previousAttributes: { disabled_at: null, disabled_reason: null },
      createdAt: now,
    });
    return { webhook_id: d.webhookId, reason: d.reason, company_id: d.companyId, livemode: d.livemode, event_id: eventId, payload };
  });
  const result = await db.$queryRaw<{ disabled: number }[]>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
        webhook_id uuid, reason text, company_id uuid, livemode boolean, event_id uuid, payload jsonb)
    ), disabled AS (
      UPDATE webhooks w SET disabled_at = ${now}, disabled_reason = i.reason, updated_at = ${now}
        FROM input i WHERE w.id = i.webhook_id AND w.disabled_at IS NULL
      RETURNING w.id
    ), events_written AS (
      INSERT INTO events (id, company_id, type, api_version, livemode, payload, created_at)
      SELECT i.event_id, i.company_id, 'webhook.disabled', ${API_VERSION}, i.livemode, i.payload, ${now}
        FROM input i JOIN disabled d ON d.id = i.webhook_id
      RETURNING id, company_id, payload
    ), fanned_out AS (
      INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, event_type, payload, next_attempt_at)
      SELECT w.id, w.company_id, e.id, 'webhook.disabled', e.payload, ${now}
        FROM events_written e
        JOIN webhooks w ON w.company_id = e.company_id AND w.event_type = 'webhook.disabled' AND w.disabled_at IS NULL
       WHERE w.id NOT IN (SELECT id FROM disabled)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM disabled)::int AS disabled,
           CASE WHEN (SELECT count(*) FROM fanned_out) > 0 THEN pg_notify(${DELIVERY_CHANNEL}, '')::text END AS notified`;
  return result[0]?.disabled ?? 0;
}
