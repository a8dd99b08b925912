import { readFileSync } from 'node:fs';
import type { Services } from '../domain/context.ts';
import { DELIVERY_CHANNEL } from '../domain/events/emit.ts';
import { startClaimLoop } from '../domain/background/claim-loop.ts';
import { claimAndSend, recordBatch, type BatchSummary, type OutcomeObserver, type SentBatch } from './tick.ts';
import { runMaintenance, STUCK_AFTER_MS } from '../domain/webhooks/recover-stuck.ts';
import { createSender, type Sender } from './send.ts';

// Rows become due later (backoff) without any notification, so look again this often anyway.
const IDLE_POLL_MS = 1_000;
// Stuck recovery runs at most this often in a continuous worker (each cron tick runs it too).
const RECOVERY_INTERVAL_MS = 5_000;
// A batch spends most of its time waiting on the database or on receivers (profiled: ~40 %
// idle with one lane, ~30 % with two), so more lanes claim and send while others wait; three
// measured best on two cores (npm run bench).
export const DEFAULT_LANES = 3;
/**
 * How long a sent batch whose outcomes could not be recorded is kept for another try. By then its
 * rows have been recovered as stuck (STUCK_AFTER_MS after the claim, on the database's clock) and
 * will be sent again, so a late record would change nothing (record-outcomes.ts: claimed_attempts).
 */
const UNRECORDED_KEPT_MS = 2 * STUCK_AFTER_MS;

/** The sender every runner uses: URL policy from the services, extra CA from WEBHOOK_CA_FILE. */
export function senderFor(services: Services, extraCaCerts?: readonly string[]): Sender {
  const file = services.config.WEBHOOK_CA_FILE;
  return createSender({
    urlPolicy: services.webhookUrlPolicy,
    extraCaCerts: extraCaCerts ?? (file ? [readFileSync(file, 'utf8')] : []),
    now: services.now,
  });
}

export interface Worker {
  /** Resolves when the loop has stopped after `stop()`. */
  done: Promise<void>;
  stop(): Promise<void>;
  /** Totals since start (for tests and logs). */
  totals: BatchSummary;
}

export interface WorkerOptions {
  batchSize?: number;
  sender?: Sender;
  idlePollMs?: number;
  /** Batches in flight at once, each claim → send → record on its own (default DEFAULT_LANES). */
  lanes?: number;
  /** Told each batch's outcomes and each recovery's count (metrics). */
  onOutcomes?: OutcomeObserver;
  /** The first claim waits for this (ClaimLoopOptions.startAfter). */
  startAfter?: Promise<unknown>;
}

/**
 * Drains due deliveries continuously: full batches back to back, then sleeps until a new
 * delivery is notified (LISTEN/NOTIFY on PostgreSQL, PGlite's listen in embedded mode) or the
 * idle poll (domain/background/claim-loop.ts). Any number of workers (and lanes) may run at once:
 * the claim never hands a row to two, and every batch is still one claim, one outcome statement
 * and at most one disable. A batch sent but not recorded (the database went away while it was
 * being sent) is kept and recorded first thing once the database answers again, before anything
 * new is claimed, so its rows are not resent after the stuck threshold; only if this process dies
 * meanwhile, or the database stays away past UNRECORDED_KEPT_MS, does stuck recovery resend them.
 */
export function startWorker(services: Services, options: WorkerOptions = {}): Worker {
  const sender = options.sender ?? senderFor(services);
  const batchSize = options.batchSize ?? services.config.WORKER_BATCH_SIZE;
  const totals: BatchSummary = { picked: 0, delivered: 0, failed: 0, dead: 0 };
  let lastRecovery = 0;
  /** Sent batches whose outcomes are not recorded yet, oldest first, with when they were first refused. */
  const unrecorded: { batch: SentBatch; since: number }[] = [];

  const report = (batch: BatchSummary) => {
    for (const key of Object.keys(totals) as (keyof BatchSummary)[]) totals[key] += batch[key];
    if (batch.picked > 0) options.onOutcomes?.({ delivered: batch.delivered, failed: batch.failed, dead: batch.dead, recovered: 0 });
    if (batch.picked > 0) services.logger.debug({ ...batch }, 'delivery batch');
  };
  /** Records a sent batch; one that cannot be recorded now is kept for the next round, and the error rethrown (the loop backs off). */
  const record = async (sent: SentBatch, since = Date.now()): Promise<BatchSummary> => {
    try {
      return await recordBatch(services, sent);
    } catch (error) {
      if (Date.now() - since < UNRECORDED_KEPT_MS) unrecorded.push({ batch: sent, since });
      else services.logger.warn({ deliveries: sent.attempts.length }, 'delivery outcomes could not be recorded; left to stuck recovery');
      throw error;
    }
  };

  const round = async (): Promise<boolean> => {
    // Outcomes a database outage kept from being recorded go first, before anything new is claimed.
    for (let pending = unrecorded.shift(); pending; pending = unrecorded.shift()) {
      report(await record(pending.batch, pending.since));
      services.logger.info({ deliveries: pending.batch.attempts.length }, 'delivery outcomes recorded after the database came back');
    }
    if (Date.now() - lastRecovery >= RECOVERY_INTERVAL_MS) {
      lastRecovery = Date.now();
      const recovered = await runMaintenance(services);
      if (recovered > 0) options.onOutcomes?.({ delivered: 0, failed: 0, dead: 0, recovered });
    }
    const sent = await claimAndSend(services, sender, batchSize);
    if (!sent) return false;
    report(await record(sent));
    return sent.attempts.length === batchSize;
  };

  const loop = startClaimLoop(services, {
    name: 'delivery',
    channel: DELIVERY_CHANNEL,
    lanes: options.lanes ?? DEFAULT_LANES,
    idlePollMs: options.idlePollMs ?? IDLE_POLL_MS,
    round,
    failureMessage: 'delivery batch failed; retrying with backoff',
    startAfter: options.startAfter,
  });
  const done = loop.done.then(async () => {
    if (!options.sender) await sender.close().catch((error: unknown) => services.logger.warn({ err: error }, 'sender did not close cleanly'));
  });
  return {
    done,
    totals,
    stop: async () => {
      await loop.stop();
      await done;
    },
  };
}
