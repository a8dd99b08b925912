import { randomUUID } from 'node:crypto';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import type { EventType } from '../events/types.ts';
import { testObjectFor } from './test-object.ts';
import { decodeCursor, encodeCursor, keysetTimestampSql, type PaginationMeta, type PaginationQuery, keysetPage } from '../kernel/pagination.ts';
import { assertCompanyAccess } from '../companies/access.ts';
import { DELIVERY_CHANNEL } from '../events/emit.ts';
import { toDelivery } from './mappers.ts';
import { TERMINAL_STATUSES, type Delivery, type DeliveryFilters } from './schemas.ts';
import { findAccessibleWebhook, lockWebhook, requirePayrollScopeFor } from './subscriptions.ts';
import { assertCheckedWebhookUrl, checkUrlsFirst, NO_CHECKED_URLS, type CheckedUrls } from './url-check.ts';

const deliveryNotFound = (membershipDenial = false): DomainError => new DomainError('NOT_FOUND', { message: 'No such webhook delivery.', membershipDenial });

/** Enqueues a test delivery with the catalogue's example object; refused for a disabled webhook. */
export async function sendTestDelivery(ctx: OperationContext, companyId: string, webhookId: string): Promise<Delivery> {
  requireScope(ctx, 'webhooks:manage');
  return withTransaction(ctx, async (tx) => {
    const webhook = await lockWebhook(tx, companyId, webhookId);
    if (webhook.disabledAt !== null) {
      throw new DomainError('VALIDATION_ERROR', {
        message: `The webhook is disabled (${webhook.disabledReason}); enable it with PATCH {"active": true} first.`,
        details: [{ path: 'params.id', message: 'webhook is disabled' }],
      });
    }
    const company = await tx.db.company.findUniqueOrThrow({ where: { id: companyId } });
    const type = webhook.eventType as EventType;
    const now = tx.services.now();
    const payload = {
      id: randomUUID(),
      type,
      api_version: webhook.apiVersionPinned,
      created_at: now.toISOString(),
      company_id: companyId,
      livemode: company.livemode,
      test: true,
      data: { object: testObjectFor(type, company), previous_attributes: null },
    };
    const row = await tx.db.webhookDelivery.create({
      data: { webhookId: webhook.id, companyId, eventType: type, payload: payload as object, isTest: true, nextAttemptAt: now },
    });
    await tx.db.$executeRaw`SELECT pg_notify(${DELIVERY_CHANNEL}, '')`;
    return toDelivery(row);
  });
}

interface DeliveryRow {
  id: string;
  created_key: string;
}

/**
 * A webhook's deliveries, newest first, keyset-paginated on (created_at, id), optionally narrowed
 * by status, event type and a created_at window. A cursor is a position in that order, so it stays
 * valid when the filters change.
 */
export async function listDeliveries(
  ctx: OperationContext,
  companyId: string,
  webhookId: string,
  query: PaginationQuery & DeliveryFilters,
): Promise<{ deliveries: Delivery[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'webhooks:manage');
  const webhook = await findAccessibleWebhook(ctx, companyId, webhookId);
  const listName = `deliveries:${webhook.id}`;
  const before = decodeCursor(listName, query.cursor);
  const keys = await ctx.db.$queryRawUnsafe<DeliveryRow[]>(
    `SELECT id, ${keysetTimestampSql('created_at')} AS created_key
       FROM webhook_deliveries
      WHERE webhook_id = $1::uuid AND company_id = $2::uuid
        AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        AND ($6::text IS NULL OR status = $6::text)
        AND ($7::timestamptz IS NULL OR created_at >= $7::timestamptz)
        AND ($8::timestamptz IS NULL OR created_at < $8::timestamptz)
      ORDER BY created_at DESC, id DESC
      LIMIT $5`,
    webhook.id,
    companyId,
    before?.at ?? null,
    before?.id ?? null,
    query.limit + 1,
    query.status ?? null,
    query.created_gte ?? null,
    query.created_lt ?? null,
  );
  const { page, pagination } = keysetPage(keys, query.limit, (last) => encodeCursor(listName, { at: last.created_key, id: last.id }));
  const rows = await ctx.db.webhookDelivery.findMany({ where: { id: { in: page.map((k) => k.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { deliveries: page.map((k) => toDelivery(byId.get(k.id)!)), pagination };
}

/**
 * The delivery a retry copies and the webhook it goes to, with every check that does not need
 * the network: tenancy by membership of the delivery's company (spec Endpoints 6), terminal
 * status, payroll:read for payroll events, the webhook still there and enabled.
 */
async function retryTarget(ctx: OperationContext, deliveryId: string, lock: boolean) {
  const source = await ctx.db.webhookDelivery.findUnique({ where: { id: deliveryId } });
  if (!source) throw deliveryNotFound();
  try {
    await assertCompanyAccess(ctx, source.companyId);
  } catch (error) {
    // Identical to an unknown delivery: nothing reveals that it exists elsewhere.
    if (error instanceof DomainError && error.code === 'NOT_FOUND') throw deliveryNotFound(true);
    throw error;
  }
  if (!TERMINAL_STATUSES.includes(source.status)) {
    throw new DomainError('CONFLICT', {
      message: `Only delivered or dead deliveries can be retried; this one is ${source.status} and will be retried automatically.`,
    });
  }
  requirePayrollScopeFor(ctx, source.eventType);
  const gone = () => new DomainError('NOT_FOUND', { message: "The delivery's webhook no longer exists." });
  if (!source.webhookId) throw gone();
  let webhook: Awaited<ReturnType<typeof findAccessibleWebhook>>;
  try {
    webhook = lock ? await lockWebhook(ctx, source.companyId, source.webhookId) : await findAccessibleWebhook(ctx, source.companyId, source.webhookId);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'NOT_FOUND') throw gone();
    throw error;
  }
  if (webhook.disabledAt !== null) {
    throw new DomainError('VALIDATION_ERROR', {
      message: `The webhook is disabled (${webhook.disabledReason}); enable it with PATCH {"active": true} before retrying.`,
      details: [{ path: 'webhook', message: 'webhook is disabled' }],
    });
  }
  return { source, webhook };
}

const RETRY_URL_PATH = 'webhook.webhook_url';

/** Before the transaction: every check of a retry, then its webhook's URL (DNS). */
export async function prepareRetryDelivery(ctx: OperationContext, deliveryId: string): Promise<CheckedUrls> {
  requireScope(ctx, 'webhooks:manage');
  const { webhook } = await retryTarget(ctx, deliveryId, false);
  return checkUrlsFirst(ctx, webhook.webhookUrl, RETRY_URL_PATH);
}

/**
 * Enqueues a fresh pending delivery copying a terminal one (spec Endpoints 6). The route sits
 * outside the company path, so tenancy comes from the delivery's company; the webhook is re-read
 * (and locked) scoped to (id, company) right before the insert.
 */
export async function retryDelivery(ctx: OperationContext, deliveryId: string, checked: CheckedUrls = NO_CHECKED_URLS): Promise<Delivery> {
  requireScope(ctx, 'webhooks:manage');
  return withTransaction(ctx, async (tx) => {
    const { source, webhook } = await retryTarget(tx, deliveryId, true);
    await assertCheckedWebhookUrl(tx, checked, webhook.webhookUrl, RETRY_URL_PATH);
    const row = await tx.db.webhookDelivery.create({
      data: {
        webhookId: webhook.id,
        companyId: source.companyId,
        eventId: source.eventId,
        eventType: source.eventType,
        payload: source.payload as object,
        isTest: source.isTest,
        retryOf: source.id,
        nextAttemptAt: tx.services.now(),
      },
    });
    await tx.db.$executeRaw`SELECT pg_notify(${DELIVERY_CHANNEL}, '')`;
    return toDelivery(row);
  });
}
