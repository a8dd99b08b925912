import pg from 'pg';
import type { Services } from '../context.ts';
import { CONNECTION_LIMITS } from '../db/sql.ts';

// A LISTEN (or a loop's batch) that keeps failing waits this long, doubling per failure up to the
// cap, so a broken database is retried without a hot loop.
const FAILURE_BACKOFF_MIN_MS = 1_000;
const FAILURE_BACKOFF_MAX_MS = 30_000;

/** The wait after `failures` failures in a row (1 s, 2 s, 4 s … 30 s). */
export const failureBackoffMs = (failures: number): number => Math.min(FAILURE_BACKOFF_MAX_MS, FAILURE_BACKOFF_MIN_MS * 2 ** Math.max(0, failures - 1));

/**
 * The connection string LISTEN sessions use: a session of their own on the privileged identity,
 * never through a transaction-mode pooler (LISTEN belongs to a session; DATABASE_DIRECT_URL).
 */
const listenUrl = (services: Services): string | undefined => services.config.DATABASE_DIRECT_URL;

export interface Listening {
  /** Ends the LISTEN and its retries; resolves once its connection is closed. */
  stop(): Promise<void>;
}

/**
 * Keeps a LISTEN on `channel` for as long as the process runs: set up now, and again (with
 * backoff) whenever setting it up fails or its connection drops — a database restart ends every
 * session. Notifications sent while it was down are lost, so `onNotify` is also called each time
 * it is set up again: the caller looks for work it may have missed. Callers poll as well, so a
 * LISTEN that is down costs latency, never work. `label` names it in the logs (`delivery`, `operations`).
 */
export function keepListening(services: Services, channel: string, label: string, onNotify: () => void): Listening {
  let stopping = false;
  let interrupt: () => void = () => {};
  // Resolves early when stop() is called, so shutdown never waits out a backoff or a live LISTEN.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      interrupt = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let unlisten: (() => Promise<void>) | null = null;
  const loop = (async () => {
    let failures = 0;
    let established = 0;
    while (!stopping) {
      // This attempt's own: a connection from an earlier attempt that reports late touches nothing.
      let lost: () => void = () => {};
      const dropped = new Promise<void>((resolve) => (lost = resolve));
      interrupt = lost;
      try {
        unlisten = await listen(services, channel, label, onNotify, lost);
        if (stopping) break;
        failures = 0;
        if (established++ > 0) {
          services.logger.info(`${label} LISTEN set up again`);
          onNotify();
        }
        await dropped; // until the connection fails (or stop() releases it)
        if (stopping) break;
        services.logger.warn(`${label} LISTEN connection lost; setting it up again`);
      } catch (error) {
        if (stopping) break;
        failures++;
        const retryInMs = failureBackoffMs(failures);
        services.logger.warn({ err: error, failures, retry_in_ms: retryInMs }, `${label} LISTEN could not start; polling meanwhile, retrying with backoff`);
        await pause(retryInMs);
      }
      const previous = unlisten;
      unlisten = null;
      await previous?.().catch(() => {});
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      interrupt();
      await loop;
      await unlisten?.();
    },
  };
}

/** Subscribes to the channel; returns the unsubscribe function. `onLost` fires if the connection drops. */
async function listen(services: Services, channel: string, label: string, onNotify: () => void, onLost: () => void): Promise<() => Promise<void>> {
  const { pglite } = services.database;
  if (pglite) return pglite.listen(channel, onNotify);
  const url = listenUrl(services);
  if (!url) return async () => {};
  const client = new pg.Client({ connectionString: url, ...CONNECTION_LIMITS });
  // A restart shows as an error (57P01) and then the end of the connection; either means lost.
  client.on('error', (error) => {
    services.logger.warn({ err: error }, `${label} LISTEN connection failed`);
    onLost();
  });
  client.on('end', onLost);
  try {
    await client.connect();
    client.on('notification', onNotify);
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return async () => {
    client.off('end', onLost);
    await client.end().catch(() => {});
  };
}
