import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { Event } from '../events/schemas.ts';
import { toWebhook } from './mappers.ts';
import type { Delivery, DeliveryAttempt, Webhook } from './schemas.ts';

/**
 * The related resources a delivery can be expanded with (registry: listWebhookDeliveries'
 * `expand`), each loaded for a whole page in one query and keyed by delivery id. A delivery
 * missing from a result has no such target: its webhook was deleted, or its event is not stored
 * (test deliveries carry a synthetic event).
 */

type DeliveryRef = Pick<Delivery, 'id' | 'company_id' | 'webhook_id' | 'event_id'>;

/** The webhook each delivery went to, read within the delivery's company. */
export async function webhooksOfDeliveries(ctx: OperationContext, deliveries: readonly DeliveryRef[]): Promise<Map<string, Webhook>> {
  requireScope(ctx, 'webhooks:manage');
  const ids = [...new Set(deliveries.flatMap((d) => (d.webhook_id ? [d.webhook_id] : [])))];
  const rows = ids.length === 0 ? [] : await ctx.db.webhook.findMany({ where: { id: { in: ids } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const result = new Map<string, Webhook>();
  for (const delivery of deliveries) {
    const row = delivery.webhook_id ? byId.get(delivery.webhook_id) : undefined;
    // Tenancy: a webhook of another company is never shown, even if an id pointed at one.
    if (row && row.companyId === delivery.company_id) result.set(delivery.id, toWebhook(row));
  }
  return result;
}

/** The stored event each delivery carried, read within the delivery's company. */
export async function eventsOfDeliveries(ctx: OperationContext, deliveries: readonly DeliveryRef[]): Promise<Map<string, Event>> {
  requireScope(ctx, 'events:read');
  const ids = [...new Set(deliveries.flatMap((d) => (d.event_id ? [d.event_id] : [])))];
  const rows = ids.length === 0 ? [] : await ctx.db.event.findMany({ where: { id: { in: ids } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const result = new Map<string, Event>();
  for (const delivery of deliveries) {
    const row = delivery.event_id ? byId.get(delivery.event_id) : undefined;
    if (row && row.companyId === delivery.company_id) result.set(delivery.id, Event.parse(row.payload));
  }
  return result;
}

/** Every attempt of each delivery from the append-only log, oldest first (possibly none yet). */
export async function attemptsOfDeliveries(ctx: OperationContext, deliveries: readonly DeliveryRef[]): Promise<Map<string, DeliveryAttempt[]>> {
  requireScope(ctx, 'webhooks:manage');
  const ids = deliveries.map((d) => d.id);
  const rows = await ctx.db.webhookDeliveryAttempt.findMany({
    where: { deliveryId: { in: ids } },
    orderBy: [{ deliveryId: 'asc' }, { attemptNumber: 'asc' }],
  });
  const result = new Map<string, DeliveryAttempt[]>(ids.map((id) => [id, []]));
  for (const row of rows) {
    result.get(row.deliveryId)?.push({
      attempt_number: row.attemptNumber,
      outcome: row.outcome as DeliveryAttempt['outcome'],
      started_at: row.startedAt.toISOString(),
      finished_at: row.finishedAt.toISOString(),
      response_status: row.responseStatus,
      error_class: row.errorClass,
      response_body: row.responseBody,
    });
  }
  return result;
}
