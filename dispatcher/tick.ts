import type { OperationContext, Services } from '../domain/context.ts';
import { withTransaction } from '../domain/context.ts';
import { applyHealthChanges, CONSECUTIVE_FAILURES, disableWebhookFor, healthChange, type HealthChange, type HealthSignal } from '../domain/webhooks/health.ts';
import { claimDeliveries, CRON_BATCH_SIZE, type ClaimedDelivery } from '../domain/webhooks/claim.ts';
import { decideOutcome, type AttemptResult, type Outcome } from './outcome.ts';
import { recordOutcomes, type AttemptRecord } from '../domain/webhooks/record-outcomes.ts';
import { runMaintenance } from '../domain/webhooks/recover-stuck.ts';
import { classifyError, type Sender, type SendResult } from './send.ts';
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

/**
 * Told what each batch or tick did (the metrics count outcomes from it): delivered, failed (to be
 * retried), dead, and stuck rows recovered. Called after the outcomes are recorded; must not throw.
 */
export type OutcomeObserver = (outcomes: Omit<TickSummary, 'picked'>) => void;

// Why a claimed row ends dead without a request being made (its dead_reason).
const WEBHOOK_DISABLED = 'webhook_disabled';
const WEBHOOK_MISSING = 'webhook_missing';
const SECRET_UNDECRYPTABLE = 'secret_undecryptable';
const PREPARE_FAILED = 'prepare_failed';

/**
 * How long a delivery whose secret cannot be decrypted waits before it is tried again. Not an
 * attempt and never terminal (issue 28): the secret is fine, the process's key is not, and an
 * operator who fixes the key gets every such delivery sent; health and metrics count them meanwhile.
 */
export const KEY_WAIT_MS = 5 * 60_000;

/** A claimed batch whose requests have all finished, waiting to be recorded. */
export interface SentBatch {
  attempts: { row: ClaimedDelivery; sent: Sent }[];
}

const EMPTY: BatchSummary = { picked: 0, delivered: 0, failed: 0, dead: 0 };

interface Sent extends SendResult {
  /** Set when the row ends dead without a request (tenancy mismatch, disabled webhook, preparation failure). */
  forcedDead?: string;
  /** Set when the row waits without a request and without counting an attempt (an undecryptable secret). */
  held?: string;
}

/** A failure before the send whose cause has a name of its own; `waits` when the row must wait, not die. */
class PreparationError extends Error {
  constructor(
    readonly reason: string,
    readonly waits = false,
  ) {
    super(reason);
  }
}

/** The dispatcher acts as a system actor: no API key, its own transactions. */
export const dispatcherContext = (services: Services): OperationContext => ({
  services,
  actor: null,
  requestId: 'dispatcher',
  db: services.database.prisma,
  inTransaction: false,
  dryRun: false,
});

/**
 * Claims one batch and sends every row concurrently: a sequential batch against 10 s timeouts
 * would outlive the stuck threshold. No row can stall the batch: one that cannot be prepared
 * (vanished webhook, any exception before the send) ends dead with a reason naming the cause, one
 * whose secret cannot be decrypted waits (KEY_WAIT_MS), and the others are sent. Null when nothing was due.
 */
export async function claimAndSend(services: Services, sender: Sender, batchSize: number): Promise<SentBatch | null> {
  const claimed = await claimDeliveries(services.database.prisma, batchSize, services.now());
  if (claimed.length === 0) return null;
  const secrets = new Map<string, string>(); // one decryption per webhook, not per delivery
  const secretOf = (sealed: string): string => {
    let secret = secrets.get(sealed);
    if (secret === undefined) {
      try {
        secret = services.secretBox.decrypt(sealed);
      } catch {
        throw new PreparationError(SECRET_UNDECRYPTABLE, true);
      }
      secrets.set(sealed, secret);
    }
    return secret;
  };
  return { attempts: await Promise.all(claimed.map((row) => attemptSafely(services, sender, row, secretOf))) };
}

/**
 * Records a sent batch in one transaction: every outcome and its attempt row, the delivery health
 * of the webhooks involved, and the webhooks the batch disabled with their webhook.disabled
 * events. The usual batch (all delivered to healthy webhooks) is a single statement.
 */
export async function recordBatch(services: Services, batch: SentBatch): Promise<BatchSummary> {
  const now = services.now();
  const records: AttemptRecord[] = [];
  const disables = new Map<string, { reason: string; lastError: string | null }>();
  const signals = new Map<string, HealthSignal[]>();
  const failingBefore = new Map<string, boolean>();
  const summary: BatchSummary = { ...EMPTY, picked: batch.attempts.length };
  for (const { row, sent } of batch.attempts) {
    if (sent.held) {
      // Waits: no attempt counted or logged, no health signal (nothing was sent), never dead.
      const wait: Outcome = { status: 'failed', nextAttemptAt: new Date(now.getTime() + KEY_WAIT_MS), reason: sent.held };
      records.push({ ...attemptRecord(row, sent, wait), counted: false });
      continue;
    }
    const outcome: Outcome = sent.forcedDead
      ? { status: 'dead', reason: sent.forcedDead, disableWebhook: null }
      : decideOutcome(sent.result, row.attempts + 1, sent.finishedAt);
    summary[outcome.status] += 1;
    records.push(attemptRecord(row, sent, outcome));
    if (sent.forcedDead) continue; // nothing was sent: it says nothing about the endpoint
    if (outcome.status === 'dead' && outcome.disableWebhook) {
      if (!disables.has(row.webhook_id)) disables.set(row.webhook_id, { reason: outcome.disableWebhook, lastError: outcome.reason });
      continue;
    }
    const signal: HealthSignal =
      outcome.status === 'delivered'
        ? { kind: 'success', at: sent.startedAt }
        : { kind: 'failure', at: sent.startedAt, error: outcome.reason, dead: outcome.status === 'dead' };
    signals.set(row.webhook_id, [...(signals.get(row.webhook_id) ?? []), signal]);
    failingBefore.set(row.webhook_id, row.webhook_failing === true);
  }
  // Health is written only when it changes: after a failure, or a success on a failing webhook.
  const changes: HealthChange[] = [...signals]
    .map(([webhookId, list]) => healthChange(webhookId, list))
    .filter((change) => change.failingSince !== null || (change.reset && failingBefore.get(change.webhookId)));

  if (disables.size === 0 && changes.length === 0) await recordOutcomes(services.database.prisma, records);
  else
    await withTransaction(dispatcherContext(services), async (tx) => {
      // Deliveries first, then webhooks in id order: a webhook DELETE locks in the same order
      // (its unfinished deliveries, then the webhook), and two batches lock webhooks alike.
      // Nothing recorded: a retry of a batch whose first recording did commit, or rows recovered
      // meanwhile. Their health signals and disables were applied then, or belong to no claim now.
      if ((await recordOutcomes(tx.db, records)) === 0) return;
      const webhookIds = [...new Set([...changes.map((c) => c.webhookId), ...disables.keys()])].sort();
      await tx.db.$queryRaw`
      SELECT id FROM webhooks WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(webhookIds)}::jsonb)::uuid)
       ORDER BY id FOR NO KEY UPDATE`;
      const worn = await applyHealthChanges(tx, changes, now);
      for (const { webhookId, lastError } of worn) {
        if (!disables.has(webhookId)) disables.set(webhookId, { reason: CONSECUTIVE_FAILURES, lastError });
      }
      for (const [webhookId, { reason, lastError }] of [...disables].sort(([a], [b]) => (a < b ? -1 : 1))) {
        await disableWebhookFor(tx, webhookId, reason, lastError);
      }
    });
  for (const [index, { row }] of batch.attempts.entries()) {
    const record = records[index]!;
    if (record.counted) logOutcome(services.logger, row, record); // a waiting row said so when it was held
  }
  return summary;
}

function attemptRecord(row: ClaimedDelivery, sent: Sent, outcome: Outcome): AttemptRecord {
  return {
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
    counted: true,
    claimed_attempts: row.attempts,
  };
}

/**
 * One claimed batch end to end: claim → send concurrently → record. One statement to claim and
 * one to record a healthy batch, whatever its size (DESIGN.md §12 "batching").
 */
export async function processBatch(services: Services, sender: Sender, batchSize: number): Promise<BatchSummary> {
  const sent = await claimAndSend(services, sender, batchSize);
  return sent ? recordBatch(services, sent) : { ...EMPTY };
}

/** Never throws: whatever goes wrong with one row becomes that row's dead outcome. */
async function attemptSafely(
  services: Services,
  sender: Sender,
  row: ClaimedDelivery,
  secretOf: (sealed: string) => string,
): Promise<{ row: ClaimedDelivery; sent: Sent }> {
  try {
    return { row, sent: await attempt(services, sender, row, secretOf) };
  } catch (error) {
    const reason = error instanceof PreparationError ? error.reason : `${PREPARE_FAILED}:${classifyError(error)}`;
    if (error instanceof PreparationError && error.waits) {
      services.logger.error(
        { delivery_id: row.delivery_id, webhook_id: row.webhook_id, reason },
        `delivery waits: its webhook secret cannot be decrypted with this process's ENCRYPTION_KEY; retried in ${KEY_WAIT_MS / 1000} s, never marked dead`,
      );
      const { forcedDead: _none, ...notSent } = unsent(services.now(), { kind: 'transport_error', errorClass: reason }, reason);
      return { row, sent: { ...notSent, held: reason } };
    }
    services.logger.error({ err: error, delivery_id: row.delivery_id, reason }, 'delivery could not be prepared; marked dead');
    return { row, sent: unsent(services.now(), { kind: 'transport_error', errorClass: reason }, reason) };
  }
}

const unsent = (now: Date, result: AttemptResult, forcedDead: string): Sent => ({
  result,
  responseStatus: null,
  responseBody: null,
  responseHeaders: null,
  startedAt: now,
  finishedAt: now,
  errorClass: forcedDead,
  forcedDead,
});

async function attempt(services: Services, sender: Sender, row: ClaimedDelivery, secretOf: (sealed: string) => string): Promise<Sent> {
  const now = services.now();
  if (row.webhook_company_id === null || row.webhook_url === null || row.secret_encrypted === null) {
    throw new PreparationError(WEBHOOK_MISSING);
  }
  // Tenancy re-check: never send one company's data to another company's endpoint.
  if (row.webhook_company_id !== row.delivery_company_id) {
    return unsent(now, { kind: 'cross_tenant_mismatch' }, 'cross_tenant_mismatch');
  }
  if (row.webhook_disabled) return unsent(now, { kind: 'transport_error', errorClass: WEBHOOK_DISABLED }, WEBHOOK_DISABLED);
  return sender.send({
    deliveryId: row.delivery_id,
    eventId: row.event_id ?? (row.payload as { id?: string }).id ?? null,
    eventType: row.event_type,
    url: row.webhook_url,
    secret: secretOf(row.secret_encrypted),
    previousSecret: row.previous_secret_encrypted === null ? null : secretOf(row.previous_secret_encrypted),
    body: JSON.stringify(row.payload),
  });
}

/** A cron tick (spec Events 6): recover stuck rows, then claim and send one batch of 50. */
export async function tick(services: Services, sender: Sender, batchSize = CRON_BATCH_SIZE): Promise<TickSummary> {
  const recovered = await runMaintenance(services);
  return { recovered, ...(await processBatch(services, sender, batchSize)) };
}
