import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Services } from '../domain/kernel/context.ts';
import { DELIVERY_CHANNEL } from '../domain/events/emit.ts';
import { processBatch, type BatchSummary } from './tick.ts';
import { recoverStuckDeliveries } from './recover.ts';
import { createSender, type Sender } from './send.ts';

// Rows become due later (backoff) without any notification, so look again this often anyway.
const IDLE_POLL_MS = 1_000;
// Stuck recovery runs at most this often in a continuous worker (each cron tick runs it too).
const RECOVERY_INTERVAL_MS = 5_000;

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

/**
 * Drains due deliveries continuously: full batches back to back, then sleeps until a new
 * delivery is notified (LISTEN/NOTIFY on PostgreSQL, PGlite's listen in embedded mode) or the
 * idle poll. Any number of workers may run at once: the claim never hands a row to two.
 */
export function startWorker(
  services: Services,
  options: { batchSize?: number; sender?: Sender; idlePollMs?: number } = {},
): Worker {
  const sender = options.sender ?? senderFor(services);
  const batchSize = options.batchSize ?? services.config.WORKER_BATCH_SIZE;
  const totals: BatchSummary = { picked: 0, delivered: 0, failed: 0, dead: 0 };
  let stopping = false;
  let wake: (() => void) | null = null;
  // A notification that arrives mid-batch must not be lost: remember it for the next sleep.
  let notified = false;
  const notify = () => {
    notified = true;
    wake?.();
  };
  let lastRecovery = 0;

  const listening = listen(services, notify);
  const loop = async () => {
    const unlisten = await listening;
    try {
      while (!stopping) {
        try {
          if (Date.now() - lastRecovery >= RECOVERY_INTERVAL_MS) {
            lastRecovery = Date.now();
            await recoverStuckDeliveries(services.database.prisma, services.now());
          }
          const batch = await processBatch(services, sender, batchSize);
          for (const key of Object.keys(totals) as (keyof BatchSummary)[]) totals[key] += batch[key];
          if (batch.picked > 0) services.logger.debug({ ...batch }, 'delivery batch');
          if (batch.picked === batchSize) continue; // more may be waiting: no sleep
        } catch (error) {
          if (stopping) break;
          services.logger.error({ err: error }, 'delivery batch failed');
        }
        if (notified || stopping) {
          notified = false;
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.idlePollMs ?? IDLE_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
        notified = false;
      }
    } finally {
      await unlisten();
      if (!options.sender) await sender.close();
    }
  };
  const done = loop();
  return {
    done,
    totals,
    stop: async () => {
      stopping = true;
      notify();
      await done;
    },
  };
}

/** Subscribes to the delivery channel; returns the unsubscribe function. */
async function listen(services: Services, onNotify: () => void): Promise<() => Promise<void>> {
  const { pglite } = services.database;
  if (pglite) return pglite.listen(DELIVERY_CHANNEL, onNotify);
  const url = services.config.DATABASE_URL;
  if (!url) return async () => {};
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  client.on('notification', onNotify);
  client.on('error', (error) => services.logger.warn({ err: error }, 'delivery LISTEN connection failed; polling only'));
  await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
  return async () => {
    await client.end().catch(() => {});
  };
}
