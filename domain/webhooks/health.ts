import type { OperationContext } from '../context.ts';
import { emitEvent } from '../events/emit.ts';
import { toWebhook } from './mappers.ts';

/**
 * Delivery health and auto-disable (as Stripe and Svix do): stop hammering an endpoint that has
 * been failing for days, and tell the company through webhook.disabled. Only attempts that reached
 * (or tried to reach) the receiver count; rows dropped on our side (disabled webhook, tenancy
 * mismatch, a row that could not be prepared, a worker that died) say nothing about it.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** A webhook whose deliveries have all failed for this long is disabled… */
export const AUTO_DISABLE_FAILING_FOR_MS = 5 * DAY_MS;
/** …or, if that comes first, once this many terminal deliveries in a row ended dead. */
export const AUTO_DISABLE_DEAD_IN_A_ROW = 50;
/** disabled_reason of an automatic disable for persistent failure. */
export const CONSECUTIVE_FAILURES = 'consecutive_failures';

/** What one sent attempt says about its endpoint. */
export type HealthSignal = { kind: 'success'; at: Date } | { kind: 'failure'; at: Date; error: string; dead: boolean };

/** A batch's net effect on one webhook's health. `reset`: a success came, so the old record is void. */
export interface HealthChange {
  webhookId: string;
  reset: boolean;
  /** First failure after the batch's last success (or of the batch, without one). */
  failingSince: Date | null;
  /** Dead deliveries after the batch's last success. */
  dead: number;
  lastError: string | null;
}

/** Folds one webhook's signals from a batch, in the order the attempts started. */
export function healthChange(webhookId: string, signals: readonly HealthSignal[]): HealthChange {
  const change: HealthChange = { webhookId, reset: false, failingSince: null, dead: 0, lastError: null };
  for (const signal of [...signals].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    if (signal.kind === 'success') {
      Object.assign(change, { reset: true, failingSince: null, dead: 0, lastError: null });
    } else {
      change.failingSince ??= signal.at;
      change.lastError = signal.error;
      if (signal.dead) change.dead += 1;
    }
  }
  return change;
}

export interface HealthState {
  enabled: boolean;
  failingSince: Date | null;
  consecutiveDead: number;
}

/** True once an enabled webhook has failed for AUTO_DISABLE_FAILING_FOR_MS or AUTO_DISABLE_DEAD_IN_A_ROW deliveries. */
export function shouldAutoDisable(state: HealthState, now: Date): boolean {
  if (!state.enabled) return false;
  const failingLongEnough = state.failingSince !== null && now.getTime() - state.failingSince.getTime() >= AUTO_DISABLE_FAILING_FOR_MS;
  return failingLongEnough || state.consecutiveDead >= AUTO_DISABLE_DEAD_IN_A_ROW;
}

interface HealthRow {
  id: string;
  enabled: boolean;
  failing_since: Date | null;
  consecutive_dead: number;
  last_error: string | null;
}

/**
 * Applies a batch's health changes (one statement) and returns the webhooks that must now be
 * disabled for consecutive failures, with their last error. Runs in the batch's transaction.
 */
export async function applyHealthChanges(
  ctx: OperationContext,
  changes: readonly HealthChange[],
  now: Date,
): Promise<{ webhookId: string; lastError: string | null }[]> {
  if (changes.length === 0) return [];
  const input = changes.map((c) => ({
    webhook_id: c.webhookId,
    reset: c.reset,
    failing_since: c.failingSince?.toISOString() ?? null,
    dead: c.dead,
    last_error: c.lastError,
  }));
  const rows = await ctx.db.$queryRaw<HealthRow[]>`
    WITH h AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb)
        AS x(webhook_id uuid, reset boolean, failing_since timestamptz, dead integer, last_error text)
    )
    UPDATE webhooks w
       SET failing_since    = CASE WHEN h.reset THEN h.failing_since ELSE COALESCE(w.failing_since, h.failing_since) END,
           consecutive_dead = CASE WHEN h.reset THEN h.dead ELSE w.consecutive_dead + h.dead END,
           last_error       = CASE WHEN h.reset THEN h.last_error ELSE COALESCE(h.last_error, w.last_error) END
      FROM h
     WHERE w.id = h.webhook_id
    RETURNING w.id::text AS id, w.disabled_at IS NULL AS enabled, w.failing_since, w.consecutive_dead, w.last_error`;
  return rows
    .filter((row) => shouldAutoDisable({ enabled: row.enabled, failingSince: row.failing_since, consecutiveDead: row.consecutive_dead }, now))
    .map((row) => ({ webhookId: row.id, lastError: row.last_error }));
}

/**
 * Disables a webhook on the system's behalf (410, unsafe URL, consecutive failures) and emits
 * webhook.disabled with the reason and the last error, through the one event emitter. A webhook
 * that is already disabled is left alone and emits nothing, so each disable is announced once.
 * Returns whether this call disabled it.
 */
export async function disableWebhookFor(ctx: OperationContext, webhookId: string, reason: string, lastError: string | null): Promise<boolean> {
  const now = ctx.services.now();
  const { count } = await ctx.db.webhook.updateMany({
    where: { id: webhookId, disabledAt: null },
    data: { disabledAt: now, disabledReason: reason, ...(lastError !== null && { lastError }), updatedAt: now },
  });
  if (count === 0) return false;
  const row = await ctx.db.webhook.findUniqueOrThrow({ where: { id: webhookId } });
  await emitEvent(ctx, row.companyId, 'webhook.disabled', toWebhook(row), { disabled_at: null, disabled_reason: null });
  return true;
}
