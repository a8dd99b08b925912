import type { Server } from 'node:http';
import type { Services } from '../domain/kernel/context.ts';
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
 * `graceMs` the remaining connections are closed; a second signal does that at once.
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
      await Promise.all([closed, metricsClosed, worker?.stop(), operations?.stop()]);
      clearTimeout(timer);
      await services.database.close();
      services.logger.info({ event: 'shutdown', signal, in_flight_at_signal: waitingFor, forced, uptime_s: Math.round(process.uptime()) }, `shut down (${signal})`);
      process.exit(0);
    } catch (error) {
      services.logger.error({ err: error, signal }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}

/** Stops accepting and closes idle keep-alive connections (a scraper keeps one open); resolves once every connection is gone. */
export function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}
