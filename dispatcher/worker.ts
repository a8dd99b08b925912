import { readFileSync } from 'node:fs';
import type { Services } from '../domain/context.ts';
import { DELIVERY_CHANNEL } from '../domain/events/emit.ts';
import { startClaimLoop } from '../domain/background/claim-loop.ts';
import { processBatch, type BatchSummary, type OutcomeObserver } from './tick.ts';
import { runMaintenance } from '../domain/webhooks/recover-stuck.ts';
import { createSender, type Sender } from './send.ts';

// Rows become due later (backoff) without any notification, so look again this often anyway.
const IDLE_POLL_MS = 1_000;
// Stuck recovery runs at most this often in a continuous worker (each cron tick runs it too).
const RECOVERY_INTERVAL_MS = 5_000;
// A batch spends most of its time waiting on the database or on receivers (profiled: ~40 %
// idle with one lane, ~30 % with two), so more lanes claim and send while others wait; three
// measured best on two cores (npm run bench).
export const DEFAULT_LANES = 3;

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
}

/**
 * Drains due deliveries continuously: full batches back to back, then sleeps until a new
 * delivery is notified (LISTEN/NOTIFY on PostgreSQL, PGlite's listen in embedded mode) or the
 * idle poll (domain/background/claim-loop.ts). Any number of workers (and lanes) may run at once:
 * the claim never hands a row to two, and every batch is still one claim, one outcome statement
 * and at most one disable. Rows of a failed batch stay in_flight and are recovered after the
 * stuck threshold.
 */
export function startWorker(services: Services, options: WorkerOptions = {}): Worker {
  const sender = options.sender ?? senderFor(services);
  const batchSize = options.batchSize ?? services.config.WORKER_BATCH_SIZE;
  const totals: BatchSummary = { picked: 0, delivered: 0, failed: 0, dead: 0 };
  let lastRecovery = 0;

  const round = async (): Promise<boolean> => {
    if (Date.now() - lastRecovery >= RECOVERY_INTERVAL_MS) {
      lastRecovery = Date.now();
      const recovered = await runMaintenance(services);
      if (recovered > 0) options.onOutcomes?.({ delivered: 0, failed: 0, dead: 0, recovered });
    }
    const batch = await processBatch(services, sender, batchSize);
    for (const key of Object.keys(totals) as (keyof BatchSummary)[]) totals[key] += batch[key];
    if (batch.picked > 0) options.onOutcomes?.({ delivered: batch.delivered, failed: batch.failed, dead: batch.dead, recovered: 0 });
    if (batch.picked > 0) services.logger.debug({ ...batch }, 'delivery batch');
    return batch.picked === batchSize;
  };

  const loop = startClaimLoop(services, {
    name: 'delivery',
    channel: DELIVERY_CHANNEL,
    lanes: options.lanes ?? DEFAULT_LANES,
    idlePollMs: options.idlePollMs ?? IDLE_POLL_MS,
    round,
    failureMessage: 'delivery batch failed; retrying with backoff',
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
