import type { Services } from '../context.ts';
import { failureBackoffMs, keepListening } from './listen.ts';

/**
 * The one background loop of the service: the delivery worker and the operation runner are both
 * "claim work, do it, sleep until notified or the idle poll". Rounds run back to back while they
 * report more work; a notification wakes every sleeping lane, and one that arrives while a lane is
 * busy is counted so it is never lost; a round that throws (the database restarting) is logged and
 * retried after the same backoff as a failing LISTEN (1 s, 2 s … 30 s); stop() wakes every sleeper.
 */

export interface ClaimLoopOptions {
  /** Names the loop in logs and in `services.loops` (health and metrics count running loops). */
  name: keyof Services['loops'];
  /** NOTIFY channel that signals new work. */
  channel: string;
  /** Rounds in flight at once (default 1). */
  lanes?: number;
  /** Without a notification, look for work this often (rows become due without one). */
  idlePollMs: number;
  /** One claim and its work; true when more work may be waiting now (a full batch, a job ran). */
  round(): Promise<boolean>;
  /** The log message of a failed round (it is logged with `failures` and `retry_in_ms`). */
  failureMessage: string;
  /**
   * The first round and the LISTEN wait for this (default: start at once). `npm start` passes the
   * moment its server is first idle, so the claims do not queue on PGlite's one connection ahead
   * of the first request. The loop counts as running from the call on (health reports it).
   */
  startAfter?: Promise<unknown>;
}

export interface ClaimLoop {
  /** Resolves once every lane has stopped and the LISTEN is closed; never rejects. */
  done: Promise<void>;
  /** Wakes sleeping lanes now (a notification, or a caller that knows work is waiting). */
  wake(): void;
  stop(): Promise<void>;
}

export function startClaimLoop(services: Services, options: ClaimLoopOptions): ClaimLoop {
  let stopping = false;
  // stop() before the start: the loop ends without waiting for startAfter.
  let stopped: () => void = () => {};
  const stopSignal = new Promise<void>((resolve) => (stopped = resolve));
  // Each sleeping lane's wake-up; a notification wakes them all.
  const sleepers = new Set<() => void>();
  // A notification that arrives while a lane is busy must not be lost: count it.
  let notifications = 0;
  const wake = () => {
    notifications++;
    for (const wakeOne of sleepers) wakeOne();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wakeOne = () => {
        clearTimeout(timer);
        sleepers.delete(wakeOne);
        resolve();
      };
      const timer = setTimeout(wakeOne, ms);
      sleepers.add(wakeOne);
    });

  const lane = async () => {
    let failures = 0;
    while (!stopping) {
      const seen = notifications;
      let more: boolean;
      try {
        more = await options.round();
        failures = 0;
      } catch (error) {
        if (stopping) break;
        failures++;
        const retryInMs = failureBackoffMs(failures);
        services.logger.error({ err: error, failures, retry_in_ms: retryInMs }, options.failureMessage);
        await sleep(retryInMs);
        continue;
      }
      if (more || stopping || notifications !== seen) continue;
      await sleep(options.idlePollMs);
    }
  };

  // Never rejects: a LISTEN that cannot start is retried in the background (the lanes poll
  // meanwhile), and shutdown failures are logged, so `npm start` cannot die of an unhandled rejection.
  const done = (async () => {
    services.loops[options.name] += 1;
    // A gate that fails only means: start now.
    if (options.startAfter) await Promise.race([options.startAfter.catch(() => {}), stopSignal]);
    if (stopping) {
      services.loops[options.name] -= 1;
      return;
    }
    // Set up again by itself after the database restarts; the idle poll covers any gap.
    const listener = keepListening(services, options.channel, options.name, wake);
    try {
      await Promise.all(Array.from({ length: options.lanes ?? 1 }, lane));
    } finally {
      services.loops[options.name] -= 1;
      await listener.stop().catch((error: unknown) => services.logger.warn({ err: error }, `${options.name} LISTEN did not close cleanly`));
    }
  })().catch((error: unknown) => services.logger.error({ err: error }, `${options.name} loop stopped on an error`));

  return {
    done,
    wake,
    stop: async () => {
      stopping = true;
      stopped();
      wake();
      await done;
    },
  };
}
