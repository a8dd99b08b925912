import type { Services } from '../domain/kernel/context.ts';
import { claimDeliveries, CRON_BATCH_SIZE, type ClaimedDelivery } from './claim.ts';
import { decideOutcome, type AttemptResult } from './outcome.ts';
import { disableWebhooks, recordOutcomes, type AttemptRecord, type WebhookDisable } from './record.ts';
import { recoverStuckDeliveries } from './recover.ts';
import type { Sender, SendResult } from './send.ts';
import { logOutcome } from './outcome-log.ts';

export interface BatchSummary {
  picked: number;
  delivered: number;
  failed: number;
  dead: number;
}

export interface TickSummary extends BatchSummary {
  recovered: number;
}

/** What a delivery is when it cannot or must not be sent (no request is made). */
const WEBHOOK_DISABLED = 'webhook_disabled';

/** A claimed batch whose requests have all finished, waiting to be recorded. */
export interface SentBatch {
  attempts: { row: ClaimedDelivery; sent: Sent }[];
}

const EMPTY: BatchSummary = { picked: 0, delivered: 0, failed: 0, dead: 0 };

/**
 * Claims one batch and sends every row concurrently: a sequential batch against 10 s timeouts
 * would outlive the stuck threshold. Null when nothing was due.
 */
export async function claimAndSend(services: Services, sender: Sender, batchSize: number): Promise<SentBatch | null> {
  const claimed = await claimDeliveries(services.database.prisma, batchSize, services.now());
  if (claimed.length === 0) return null;
  const secrets = new Map<string, string>(); // one decryption per webhook, not per delivery
  const secretOf = (sealed: string): string => {
    let secret = secrets.get(sealed);
    if (secret === undefined) secrets.set(sealed, (secret = services.secretBox.decrypt(sealed)));
    return secret;
  };
  return { attempts: await Promise.all(claimed.map((row) => attempt(services, sender, row, secretOf))) };
}

/**
 * Records a sent batch: one statement for every outcome and its attempt row, one more only when
 * webhooks must be disabled (410, unsafe URL).
 */
export async function recordBatch(services: Services, batch: SentBatch): Promise<BatchSummary> {
  const records: AttemptRecord[] = [];
  const disables = new Map<string, WebhookDisable>();
  const summary: BatchSummary = { ...EMPTY, picked: batch.attempts.length };
  for (const { row, sent } of batch.attempts) {
    const outcome = sent.forcedDead
      ? ({ status: 'dead', reason: sent.forcedDead, disableWebhook: null } as const)
      : decideOutcome(sent.result, row.attempts + 1, sent.finishedAt);
    summary[outcome.status] += 1;
    records.push({
      id: row.delivery_id,
      status: outcome.status,
      next_attempt_at: outcome.status === 'failed' ? outcome.nextAttemptAt.toISOString() : null,
      response_status: sent.responseStatus,
      response_body: sent.responseBody,
      response_headers: sent.responseHeaders,
      last_error: outcome.status === 'delivered' ? null : outcome.reason,
      dead_reason: outcome.status === 'dead' ? outcome.reason : null,
      started_at: sent.startedAt.toISOString(),
      finished_at: sent.finishedAt.toISOString(),
      error_class: sent.errorClass,
    });
    if (outcome.status === 'dead' && outcome.disableWebhook && !disables.has(row.webhook_id)) {
      disables.set(row.webhook_id, {
        webhookId: row.webhook_id,
        companyId: row.webhook_company_id,
        livemode: row.livemode ?? false,
        eventType: row.event_type, // a delivery's type is always its webhook's type
        webhookUrl: row.webhook_url,
        reason: outcome.disableWebhook,
      });
    }
  }
  const db = services.database.prisma;
  await recordOutcomes(db, records);
  if (disables.size > 0) await disableWebhooks(db, [...disables.values()], services.now());
  batch.attempts.forEach(({ row }, index) => logOutcome(services.logger, row, records[index]!));
  return summary;
}

/**
 * One claimed batch end to end: claim → send concurrently → record. At most three SQL
 * statements per batch, whatever its size (DESIGN.md §12 "batching").
 */
export async function processBatch(services: Services, sender: Sender, batchSize: number): Promise<BatchSummary> {
  const sent = await claimAndSend(services, sender, batchSize);
  return sent ? recordBatch(services, sent) : { ...EMPTY };
}

interface Sent extends SendResult {
  /** Set when the row ends dead without a request (tenancy mismatch, disabled webhook). */
  forcedDead?: string;
}

async function attempt(
  services: Services,
  sender: Sender,
  row: ClaimedDelivery,
  secretOf: (sealed: string) => string,
): Promise<{ row: ClaimedDelivery; sent: Sent }> {
  const now = services.now();
  const unsent = (result: AttemptResult, forcedDead: string): Sent => ({
    result,
    responseStatus: null,
    responseBody: null,
    responseHeaders: null,
    startedAt: now,
    finishedAt: now,
    errorClass: forcedDead,
    forcedDead,
  });
  // Tenancy re-check: never send one company's data to another company's endpoint.
  if (row.webhook_company_id !== row.delivery_company_id) {
    return { row, sent: unsent({ kind: 'cross_tenant_mismatch' }, 'cross_tenant_mismatch') };
  }
  if (row.webhook_disabled) return { row, sent: unsent({ kind: 'transport_error', errorClass: WEBHOOK_DISABLED }, WEBHOOK_DISABLED) };
  const sent = await sender.send({
    deliveryId: row.delivery_id,
    eventId: row.event_id ?? (row.payload as { id?: string }).id ?? null,
    eventType: row.event_type,
    url: row.webhook_url,
    secret: secretOf(row.secret_encrypted),
    body: JSON.stringify(row.payload),
  });
  return { row, sent };
}

/** A cron tick (spec Events 6): recover stuck rows, then claim and send one batch of 50. */
export async function tick(services: Services, sender: Sender, batchSize = CRON_BATCH_SIZE): Promise<TickSummary> {
  const recovered = await recoverStuckDeliveries(services.database.prisma, services.now());
  return { recovered, ...(await processBatch(services, sender, batchSize)) };
}
