import type { OperationContext } from '../kernel/context.ts';
import { requireScope, withTransaction } from '../kernel/context.ts';
import { DomainError } from '../kernel/errors.ts';
import { isPayrollEventType, PAYROLL_SCOPE } from '../kernel/events.ts';
import { API_VERSION } from '../kernel/version.ts';
import { emitEvent } from '../events/emit.ts';
import { toWebhook, WEBHOOK_COLUMNS, type WebhookRow } from './mappers.ts';
import { DRY_RUN_SECRET, generateWebhookSecret } from './secrets.ts';
import { assertSafeWebhookUrl } from './url-check.ts';
import {
  MAX_WEBHOOKS_PER_COMPANY,
  type CreateWebhookBody,
  type CreatedWebhook,
  type UpdateWebhookBody,
  type Webhook,
} from './schemas.ts';

export const MANUALLY_DISABLED = 'manually_disabled';

export const webhookNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such webhook.' });

/** Payroll and tax-return events carry payroll data: subscribing needs payroll:read too (spec Endpoints 1). */
export function requirePayrollScopeFor(ctx: OperationContext, eventType: string): void {
  if (isPayrollEventType(eventType)) requireScope(ctx, PAYROLL_SCOPE);
}

/** Reads a webhook scoped to (id, company): another company's webhook is simply not found. */
export async function findWebhook(ctx: OperationContext, companyId: string, id: string) {
  const row = await ctx.db.webhook.findFirst({ where: { id, companyId } });
  if (!row) throw webhookNotFound();
  return row;
}

export async function listWebhooks(ctx: OperationContext, companyId: string): Promise<Webhook[]> {
  requireScope(ctx, 'webhooks:manage');
  const rows = await ctx.db.webhook.findMany({ where: { companyId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(toWebhook);
}

export async function getWebhook(ctx: OperationContext, companyId: string, id: string): Promise<Webhook> {
  requireScope(ctx, 'webhooks:manage');
  return toWebhook(await findWebhook(ctx, companyId, id));
}

/** Creates a subscription; the secret is generated here and returned only in this response. */
export async function createWebhook(ctx: OperationContext, companyId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
  const actor = requireScope(ctx, 'webhooks:manage');
  requirePayrollScopeFor(ctx, body.event_type);
  await assertSafeWebhookUrl(ctx, body.webhook_url);
  return withTransaction(ctx, async (tx) => {
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

/**
 * Changes URL, name, description or the active flag. A new URL, and any `active: true`, is
 * checked again; disabling records `manually_disabled` and emits webhook.disabled.
 */
export async function updateWebhook(ctx: OperationContext, companyId: string, id: string, body: UpdateWebhookBody): Promise<Webhook> {
  requireScope(ctx, 'webhooks:manage');
  return withTransaction(ctx, async (tx) => {
    const current = await findWebhook(tx, companyId, id);
    const url = body.webhook_url ?? current.webhookUrl;
    if (body.webhook_url !== undefined || body.active === true) await assertSafeWebhookUrl(tx, url);
    const now = tx.services.now();
    const disabling = body.active === false && current.disabledAt === null;
    const row = await tx.db.webhook.update({
      where: { id: current.id },
      data: {
        webhookUrl: url,
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        ...(disabling && { disabledAt: now, disabledReason: MANUALLY_DISABLED }),
        ...(body.active === true && { disabledAt: null, disabledReason: null }),
        updatedAt: now,
      },
    });
    const webhook = toWebhook(row);
    if (disabling) await emitEvent(tx, companyId, 'webhook.disabled', webhook, { disabled_at: null, disabled_reason: null });
    return webhook;
  });
}

/**
 * Deletes the subscription; its deliveries stay as the audit trail, with webhook_id null. One
 * conditional DELETE scoped to (id, company): nothing deleted means not found (another company's
 * webhook included), and of two concurrent deletes the second simply finds nothing.
 */
export async function deleteWebhook(ctx: OperationContext, companyId: string, id: string): Promise<void> {
  requireScope(ctx, 'webhooks:manage');
  await withTransaction(ctx, async (tx) => {
    const { count } = await tx.db.webhook.deleteMany({ where: { id, companyId } });
    if (count === 0) throw webhookNotFound();
  });
}
