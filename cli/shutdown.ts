import type { Server } from 'node:http';
import type { Services } from '../domain/context.ts';
import type { Worker } from '../dispatcher/worker.ts';

export interface ShutdownTargets {
  server: Server;
  /** The metrics server (METRICS_PORT), closed with the API server: a scrape in flight may finish. */
  metricsServer?: Server | null;
  /** The in-process delivery loop, when this process runs one. */
  worker: Worker | null;
  /** The in-process operation runner, when this process runs one: stopped like the delivery loop. */
  operations?: { stop(): Promise<void> } | null;
  services: Services;
  /** How long in-flight requests and sends may take before their connections are closed. */
  graceMs: number;
}

/**
 * SIGTERM and SIGINT stop the server gracefully, within a bound: stop accepting, let in-flight
 * requests finish (idle keep-alive connections close at once), stop the delivery loop after its
 * current sends, close the database (releasing the data directory), and log one line. Past
 * `graceMs` the remaining connections are closed and the loops are no longer waited for (an
 * operation still running resumes from its checkpoint when its lease expires); a second signal
 * closes the connections at once.
 */
export function gracefulShutdown({ server, metricsServer, worker, operations, services, graceMs }: ShutdownTargets): void {
  let inFlight = 0;
  server.on('request', (_request, response) => {
    inFlight++;
    response.once('close', () => inFlight--);
  });

  let stopping = false;
  let forced = false;
  const force = (): void => {
    forced = true;
    server.closeAllConnections();
    metricsServer?.closeAllConnections();
  };

  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return force();
    stopping = true;
    const waitingFor = inFlight;
    const timer = setTimeout(force, graceMs);
    const closed = closeServer(server);
    const metricsClosed = metricsServer ? closeServer(metricsServer) : undefined;
    try {
      // The loops get the same bound: a long operation (an import) still running then is left to
      // its lease and resumes from its last checkpoint elsewhere, as after a crash.
      const finished = await settlesWithin(Promise.all([closed, metricsClosed, worker?.stop(), operations?.stop()]), graceMs + CLOSE_MARGIN_MS);
      clearTimeout(timer);
      // A pool waits for its busy clients; an abandoned job holds one, so this is bounded too.
      await settlesWithin(services.database.close(), CLOSE_MARGIN_MS);
      services.logger.info(
        { event: 'shutdown', signal, in_flight_at_signal: waitingFor, forced, abandoned: !finished, uptime_s: Math.round(process.uptime()) },
        finished
          ? `shut down (${signal})`
          : `shut down (${signal}); work still running after ${graceMs} ms was left to its lease and resumes from its checkpoint`,
      );
      process.exit(0);
    } catch (error) {
      services.logger.error({ err: error, signal }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}

/** After the grace period, how long closing connections and the database may still take. */
export const CLOSE_MARGIN_MS = 2_000;

/** Whether `work` settles within `ms` (a rejection counts as settled; it is the caller's to see). */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops accepting and closes idle keep-alive connections (a scraper keeps one open); resolves once every connection is gone. */
export function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}
