import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { hasScope } from '../kernel/scopes.ts';
import { isPayrollEventType, PAYROLL_SCOPE } from '../events/types.ts';
import { API_VERSION } from '../kernel/version.ts';
import { emitEvent } from '../events/emit.ts';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from './mappers.ts';
import { DRY_RUN_SECRET, generateWebhookSecret } from './secrets.ts';
import { assertCheckedWebhookUrl, checkUrlsFirst, NO_CHECKED_URLS, type CheckedUrls } from './url-check.ts';
import { MAX_WEBHOOKS_PER_COMPANY, type CreateWebhookBody, type CreatedWebhook, type UpdateWebhookBody, type Webhook } from './schemas.ts';

export const MANUALLY_DISABLED = 'manually_disabled';

export const webhookNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such webhook.' });

/**
 * Payroll and tax-return events carry payroll data: subscribing to them, and every later
 * operation on such a subscription (read, change, test, deliveries, retry, rotation), needs
 * payroll:read too (spec Endpoints 1 and 6), or a key without it could point an existing
 * payroll webhook at itself.
 */
export function requirePayrollScopeFor(ctx: OperationContext, eventType: string): void {
  if (isPayrollEventType(eventType)) requireScope(ctx, PAYROLL_SCOPE);
}

/** Reads a webhook scoped to (id, company): another company's webhook is simply not found. */
export async function findWebhook(ctx: OperationContext, companyId: string, id: string) {
  const row = await ctx.db.webhook.findFirst({ where: { id, companyId } });
  if (!row) throw webhookNotFound();
  return row;
}

/** findWebhook plus the payroll check: what every operation on one webhook starts with. */
export async function findAccessibleWebhook(ctx: OperationContext, companyId: string, id: string) {
  const row = await findWebhook(ctx, companyId, id);
  requirePayrollScopeFor(ctx, row.eventType);
  return row;
}

/**
 * Inside a transaction: locks the webhook row, then reads it. Concurrent writes on one webhook
 * (ten DELETEs, a DELETE beside a PATCH, test or retry) queue here, and each one that comes after
 * a delete finds no row and answers 404, as it would have a moment later.
 */
export async function lockWebhook(tx: OperationContext, companyId: string, id: string) {
  await tx.db.$queryRaw`SELECT id FROM webhooks WHERE id = ${id}::uuid AND company_id = ${companyId}::uuid FOR UPDATE`;
  return findAccessibleWebhook(tx, companyId, id);
}

export async function listWebhooks(ctx: OperationContext, companyId: string): Promise<Webhook[]> {
  const actor = requireScope(ctx, 'webhooks:manage');
  const rows = await ctx.db.webhook.findMany({ where: { companyId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  // A payroll webhook exists only for keys holding payroll:read: fetching one is refused, so listing it is too.
  const visible = hasScope(actor.scopes, PAYROLL_SCOPE) ? rows : rows.filter((row) => !isPayrollEventType(row.eventType));
  return visible.map(toWebhook);
}

export async function getWebhook(ctx: OperationContext, companyId: string, id: string): Promise<Webhook> {
  requireScope(ctx, 'webhooks:manage');
  return toWebhook(await findAccessibleWebhook(ctx, companyId, id));
}

/** Before the transaction: authorise and check the new URL (DNS), so no connection waits on DNS. */
export async function prepareCreateWebhook(ctx: OperationContext, body: CreateWebhookBody): Promise<CheckedUrls> {
  requireScope(ctx, 'webhooks:manage');
  requirePayrollScopeFor(ctx, body.event_type);
  return checkUrlsFirst(ctx, body.webhook_url);
}

/** Creates a subscription; the secret is generated here and returned only in this response. */
export async function createWebhook(
  ctx: OperationContext,
  companyId: string,
  body: CreateWebhookBody,
  checked: CheckedUrls = NO_CHECKED_URLS,
): Promise<CreatedWebhook> {
  const actor = requireScope(ctx, 'webhooks:manage');
  requirePayrollScopeFor(ctx, body.event_type);
  return withTransaction(ctx, async (tx) => {
    await assertCheckedWebhookUrl(tx, checked, body.webhook_url);
    // Lock the company row so concurrent creates cannot both slip under the limit; the insert
    // then counts in its own statement (a fresh snapshot, after the lock) and inserts only under
    // the limit — no separate count before the write.
    await tx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR UPDATE`;
    const secret = generateWebhookSecret();
    const now = tx.services.now();
    const [row] = await tx.db.$queryRaw<WebhookRow[]>`
      INSERT INTO webhooks (company_id, event_type, webhook_url, name, description, secret_encrypted,
                            created_by_api_key_id, api_version_pinned, created_at, updated_at)
      SELECT ${companyId}::uuid, ${body.event_type}, ${body.webhook_url}, ${body.name}, ${body.description},
             ${tx.services.secretBox.encrypt(secret)}, ${actor.apiKeyId}::uuid, ${API_VERSION}, ${now}, ${now}
       WHERE (SELECT count(*) FROM webhooks WHERE company_id = ${companyId}::uuid) < ${MAX_WEBHOOKS_PER_COMPANY}
      RETURNING ${WEBHOOK_COLUMNS}`;
    if (!row) {
      throw new DomainError('VALIDATION_ERROR', {
        message: `A company can have at most ${MAX_WEBHOOKS_PER_COMPANY} webhooks; delete one first.`,
        details: [{ path: 'body', message: 'webhook limit reached' }],
      });
    }
    return { ...toWebhook(row), secret: tx.dryRun ? DRY_RUN_SECRET : secret };
  });
}

/** The URL an update must check: a new one, or the stored one when re-enabling. */
const urlToCheck = (body: UpdateWebhookBody, storedUrl: string): string | null => body.webhook_url ?? (body.active === true ? storedUrl : null);

/** Before the transaction: authorise and check the URL the update will need (DNS). */
export async function prepareUpdateWebhook(ctx: OperationContext, companyId: string, id: string, body: UpdateWebhookBody): Promise<CheckedUrls> {
  requireScope(ctx, 'webhooks:manage');
  const current = await findAccessibleWebhook(ctx, companyId, id);
  return checkUrlsFirst(ctx, urlToCheck(body, current.webhookUrl));
}

/**
 * Changes URL, name, description or the active flag. A new URL, and any `active: true`, is
 * checked again; disabling records `manually_disabled` and emits webhook.disabled; re-enabling
 * clears the delivery health, so an endpoint that was fixed starts with a clean record.
 */
export async function updateWebhook(
  ctx: OperationContext,
  companyId: string,
  id: string,
  body: UpdateWebhookBody,
  checked: CheckedUrls = NO_CHECKED_URLS,
): Promise<Webhook> {
  requireScope(ctx, 'webhooks:manage');
  return withTransaction(ctx, async (tx) => {
    const current = await lockWebhook(tx, companyId, id);
    const check = urlToCheck(body, current.webhookUrl);
    if (check !== null) await assertCheckedWebhookUrl(tx, checked, check);
    const now = tx.services.now();
    const disabling = body.active === false && current.disabledAt === null;
    const enabling = body.active === true && current.disabledAt !== null;
    const row = await tx.db.webhook.update({
      where: { id: current.id },
      data: {
        webhookUrl: body.webhook_url ?? current.webhookUrl,
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        ...(disabling && { disabledAt: now, disabledReason: MANUALLY_DISABLED }),
        ...(enabling && { disabledAt: null, disabledReason: null, failingSince: null, consecutiveDead: 0, lastError: null }),
        updatedAt: now,
      },
    });
    const webhook = toWebhook(row);
    if (disabling) await emitEvent(tx, companyId, 'webhook.disabled', webhook, { disabled_at: null, disabled_reason: null });
    return webhook;
  });
}

/**
 * Deletes the subscription; its deliveries stay as the audit trail, with webhook_id null.
 * Locks the webhook's unfinished deliveries before the webhook itself: the dispatcher records a
 * batch in that order (deliveries, then the webhook's health), so the two never deadlock.
 */
export async function deleteWebhook(ctx: OperationContext, companyId: string, id: string): Promise<void> {
  requireScope(ctx, 'webhooks:manage');
  await withTransaction(ctx, async (tx) => {
    // One statement: the count over the locking CTE is evaluated before the DELETE reaches the
    // webhook row, so the unfinished deliveries are locked first (the dispatcher's order).
    // Nothing deleted: not found, another company's webhook included.
    const [row] = await tx.db.$queryRaw<{ event_type: string }[]>`
      WITH unfinished AS (
        SELECT id FROM webhook_deliveries
         WHERE webhook_id = ${id}::uuid AND company_id = ${companyId}::uuid AND status IN ('pending', 'in_flight', 'failed')
           FOR UPDATE)
      DELETE FROM webhooks
       WHERE id = ${id}::uuid AND company_id = ${companyId}::uuid AND (SELECT count(*) FROM unfinished) >= 0
      RETURNING event_type`;
    if (!row) throw webhookNotFound();
    // A payroll webhook needs payroll:read like every other write on it; throwing rolls the delete back.
    requirePayrollScopeFor(tx, row.event_type);
  });
}
