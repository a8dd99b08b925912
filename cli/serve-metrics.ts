import type { Server } from 'node:http';
import type { Services } from '../domain/context.ts';
import type { Metrics } from '../ops/metrics.ts';
import { METRICS_PATH, startMetricsServer } from '../ops/metrics-server.ts';
import { startupStep } from './load-config.ts';
import { localUrl } from './local-url.ts';

/** The process's metrics when METRICS_PORT is set; null otherwise, and then nothing is counted. */
export async function metricsFor(services: Services): Promise<Metrics | null> {
  if (services.config.METRICS_PORT === undefined) return null;
  // prom-client loads only when metrics are on.
  const { createMetrics } = await import('../ops/metrics.ts');
  return createMetrics(services);
}

/**
 * Serves the metrics on METRICS_HOST:METRICS_PORT and logs where (the bound port too, for
 * METRICS_PORT=0). A port that cannot be bound stops start-up with one line naming METRICS_PORT.
 */
export async function serveMetrics(services: Services, metrics: Metrics): Promise<Server> {
  const host = services.config.METRICS_HOST;
  const wanted = services.config.METRICS_PORT ?? 0;
  const { server, port } = await startupStep(() => startMetricsServer(metrics, wanted, host, services.logger), {
    port: wanted,
    host,
    settings: { port: 'METRICS_PORT', host: 'METRICS_HOST' },
  });
  const url = `${localUrl(host, port)}${METRICS_PATH}`;
  services.logger.info({ metrics_url: url, metrics_port: port, metrics_host: host }, `metrics on ${url}`);
  return server;
}
