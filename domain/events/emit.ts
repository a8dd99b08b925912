import { randomUUID } from 'node:crypto';
import type { OperationContext } from '../context.ts';
import { readRows, withTransaction } from '../context.ts';
import { EVENT_CATALOG, isPayrollEvent, type EventType } from './types.ts';
import { API_VERSION } from '../kernel/version.ts';

/** Channel the delivery workers LISTEN on; notified at commit when deliveries were queued. */
export const DELIVERY_CHANNEL = 'webhook_deliveries';

export interface EmittedEvent {
  eventId: string;
  deliveries: number;
}

/**
 * Writes an event and one pending delivery per active webhook of the company subscribed to its
 * type, in the caller's transaction (an outbox): a rolled-back write leaves neither behind.
 * One statement: the company's mode, the event, its deliveries and the workers' wake-up (sent
 * at commit) — every write that emits pays one round trip for it, not four.
 */
export async function emitEvent(
  ctx: OperationContext,
  companyId: string,
  type: EventType,
  object: unknown,
  previousAttributes: Record<string, unknown> | null,
): Promise<EmittedEvent> {
  const [eventId, deliveries] = await insertEvents(ctx, companyId, type, [{ object, previousAttributes }]);
  return { eventId: eventId[0] as string, deliveries };
}

/**
 * emitEvent for many objects of one type at once (a bulk import): every event, its deliveries and
 * the workers' wake-up in one statement, in the caller's transaction. Returns the deliveries queued.
 */
export async function emitEvents(ctx: OperationContext, companyId: string, type: EventType, objects: readonly unknown[]): Promise<number> {
  if (objects.length === 0) return 0;
  const [, deliveries] = await insertEvents(
    ctx,
    companyId,
    type,
    objects.map((object) => ({ object, previousAttributes: null })),
  );
  return deliveries;
}

/**
 * Events (one per id and payload), their deliveries (one per active webhook of the type, where
 * fan_out) and the workers' wake-up, with the company's livemode. Parameters: company, type, API
 * version, ids, payloads, created at, fan-out flags, channel. Through the bare driver (one round
 * trip, prepared once per connection): every commit sends it while its series counter is locked.
 */
export const INSERT_EVENTS = `
  WITH company AS (SELECT livemode FROM companies WHERE id = $1::uuid),
  event AS (
    INSERT INTO events (id, company_id, type, api_version, livemode, payload, created_at)
    SELECT i.id, $1::uuid, $2::text, $3::text, c.livemode, jsonb_set(i.payload, '{livemode}', to_jsonb(c.livemode)), $6::timestamptz
      FROM unnest($4::uuid[], $5::jsonb[]) AS i(id, payload) CROSS JOIN company c
    RETURNING id, payload
  ),
  queued AS (
    INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, event_type, payload, next_attempt_at)
    SELECT w.id, w.company_id, e.id, $2::text, e.payload, $6::timestamptz
      FROM webhooks w CROSS JOIN event e JOIN unnest($4::uuid[], $7::boolean[]) AS f(id, fan_out) ON f.id = e.id
     WHERE w.company_id = $1::uuid AND w.event_type = $2::text AND w.disabled_at IS NULL AND f.fan_out
    RETURNING 1
  )
  SELECT (SELECT livemode FROM company) AS livemode,
         (SELECT count(*)::int FROM queued) AS deliveries,
         (SELECT count(*)::int FROM (SELECT pg_notify($8::text, '') FROM (SELECT 1 FROM queued LIMIT 1) q) n) AS notified`;

/** The one statement both write: events, their deliveries and the wake-up. Returns the event ids and the deliveries queued. */
async function insertEvents(
  ctx: OperationContext,
  companyId: string,
  type: EventType,
  items: readonly { object: unknown; previousAttributes: Record<string, unknown> | null }[],
): Promise<[string[], number]> {
  // Our own payloads must match the published schema; a mismatch is a bug, so fail loudly.
  const schema = EVENT_CATALOG[type].object;
  const createdAt = ctx.services.now();
  const ids = items.map(() => randomUUID());
  // An event about a payroll webhook goes to no subscriber: whoever set up a webhook.disabled
  // receiver need not hold payroll:read. It stays in the feed for keys that do.
  const fanOut = items.map(({ object }) => !isPayrollEvent(type, object) || EVENT_CATALOG[type].payroll);
  // livemode is the company's, set in SQL from the row the statement reads.
  const payloads = items.map(({ object, previousAttributes }, index) =>
    JSON.stringify(
      buildEventPayload({ eventId: ids[index] as string, type, companyId, livemode: false, object: schema.parse(object), previousAttributes, createdAt }),
    ),
  );
  return withTransaction(ctx, async (tx) => {
    const [row] = await readRows<{ livemode: boolean | null; deliveries: number }>(tx, INSERT_EVENTS, [
      companyId,
      type,
      API_VERSION,
      ids,
      payloads,
      createdAt,
      fanOut,
      DELIVERY_CHANNEL,
    ]);
    if (row?.livemode === null || row?.livemode === undefined) throw new Error(`emitting ${type}: no company ${companyId}`);
    tx.emitted?.push(type);
    return [ids, row.deliveries];
  });
}

export interface EventPayloadInput {
  eventId: string;
  type: EventType;
  companyId: string;
  livemode: boolean;
  object: unknown;
  previousAttributes: Record<string, unknown> | null;
  createdAt: Date;
}

/** The delivered JSON (DESIGN.md §6 "event payload"): built here only, for every emitter. */
export const buildEventPayload = (input: EventPayloadInput) => ({
  id: input.eventId,
  type: input.type,
  api_version: API_VERSION,
  created_at: input.createdAt.toISOString(),
  company_id: input.companyId,
  livemode: input.livemode,
  data: { object: input.object, previous_attributes: input.previousAttributes },
});

/** The fields of `after` that differ from `before`, with their old values (Stripe's previous_attributes). */
export function previousAttributes<T extends Record<string, unknown>>(before: T, after: T): Record<string, unknown> | null {
  const changed = Object.keys(after).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  return changed.length === 0 ? null : Object.fromEntries(changed.map((key) => [key, before[key]]));
}
