import { createServices } from '../domain/bootstrap.ts';
import { DEMO_EMAIL, seedDemo } from '../domain/users/seed.ts';
import { defaultPublicBaseUrl, httpTimeouts } from '../domain/kernel/config.ts';
import { listen } from '../rest/server.ts';
import { startupStep } from './load-config.ts';
import { buildApp } from './build-app.ts';
import { startWorker } from '../dispatcher/worker.ts';
import { gracefulShutdown } from './shutdown.ts';
import { startOperationRunner } from '../domain/operations/start.ts';
import { localUrl } from './local-url.ts';
import { metricsFor, serveMetrics } from './serve-metrics.ts';
import { firstAnswered } from './first-answer.ts';
import type { Config } from '../domain/kernel/config.ts';
import type { PgliteAssets } from '../domain/db/pglite-assets.ts';

/** `npm start` once its configuration is read (cli/serve.ts): the database, the server, the demo seed, the loops. */
export async function serve(config: Config, pgliteAssets?: PgliteAssets): Promise<void> {
  const services = await startupStep(() => createServices(config, { processName: 'npm start', stdoutIsTerminal: process.stdout.isTTY === true, pgliteAssets }));
  // With METRICS_PORT unset there are none, and the request path counts nothing.
  const metrics = await metricsFor(services);
  // Built before seeding, so a setting the app refuses stops start-up before any key is printed.
  const app = await startupStep(async () => buildApp(services, { metrics }));

  // Both ports are bound before the demo is seeded: a first start that cannot listen (a taken port)
  // stops before a key exists, so the next start seeds and prints one; and the printed curl line names
  // the port this very server holds, never another server's on a port it failed to take.
  const { server, port } = await startupStep(() => listen(app, config.PORT, config.HOST, httpTimeouts(config)), { port: config.PORT, host: config.HOST });
  // Deliveries go out from this process unless separate workers run (DISPATCHER_TIMER=false). Made
  // now, so health reports the loop from the first answer on; but their first claims wait until that
  // answer (or a second passes), not to queue ahead of it on PGlite's one connection (issue 30).
  const startAfter = firstAnswered(server);
  const worker = config.DISPATCHER_TIMER ? startWorker(services, { onOutcomes: metrics?.onDeliveries, startAfter }) : null;
  // Long-running operations run here too, under the same switch (workers run them otherwise).
  const operations = config.DISPATCHER_TIMER ? startOperationRunner(services, { onFinished: metrics?.onOperationFinished, startAfter }) : null;
  // Metrics on their own port, never the API's.
  const metricsServer = metrics ? await serveMetrics(services, metrics) : null;
  // The URL to open: PUBLIC_BASE_URL (by default HOST and PORT); with PORT=0 the port picked only now.
  const url = config.PORT === 0 ? defaultPublicBaseUrl(config.HOST, port) : config.PUBLIC_BASE_URL;

  if (config.embedded || config.SEED_DEMO) {
    const demo = await startupStep(() => seedDemo(services.database));
    if (demo) {
      // Shown once: only the key's hash is stored.
      process.stdout.write(
        `${[
          '',
          'Created a demo user, a sandbox company and a test API key (shown only now; keep it):',
          `  ${demo.key}`,
          `  demo user ${demo.userId} (${DEMO_EMAIL}), company ${demo.companyId}`,
          'Try:',
          `  curl -s -H "Authorization: Bearer ${demo.key}" ${url}/api/v1/companies`,
          '',
        ].join('\n')}\n`,
      );
    }
  }

  services.logger.info({ url, port, host: config.HOST, database: services.database.kind }, `listening on ${url} (API reference: ${url}/docs)`);
  // A second process refused the embedded data directory is told where this server answers instead.
  services.database.lock?.update({ url: localUrl(config.HOST, port) });

  gracefulShutdown({ server, metricsServer, worker, operations, services, graceMs: config.SHUTDOWN_GRACE_MS });
}
