import { createServices } from '../domain/bootstrap.ts';
import { startWorker } from '../dispatcher/worker.ts';
import { startOperationRunner } from '../domain/operations/start.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';
import { metricsFor, serveMetrics } from './serve-metrics.ts';
import { CLOSE_MARGIN_MS, closeServer, settlesWithin } from './shutdown.ts';

const config = configFromEnvironment();
if (config.embedded) {
  // PGlite belongs to one process: the embedded server runs its own delivery loop instead.
  process.stderr.write('npm run worker needs DATABASE_URL (PostgreSQL); with the embedded database, npm start delivers webhooks itself.\n');
  process.exit(1);
}
const services = await startupStep(() =>
  createServices(config, { migrate: false, processName: 'npm run worker', stdoutIsTerminal: process.stdout.isTTY === true }),
);
const metrics = await metricsFor(services);
const metricsServer = metrics ? await serveMetrics(services, metrics) : null;
const worker = startWorker(services, { onOutcomes: metrics?.onDeliveries });
const operations = startOperationRunner(services, { onFinished: metrics?.onOperationFinished });
services.logger.info({ batch: config.WORKER_BATCH_SIZE, pid: process.pid }, 'delivery worker started');

// Stopping lets each lane finish its batch: claimed rows are sent and recorded, none left in_flight.
const shutdown = (signal: NodeJS.Signals): void => {
  services.logger.info({ event: 'stopping', signal }, `worker stopping (${signal}): finishing the batches in flight`);
  // A scrape still in flight past the grace period is cut: the delivery loop decides when we stop.
  const cutScrapes = setTimeout(() => metricsServer?.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
  // Bounded like npm start's: a long operation still running after the grace period is left to
  // its lease and resumes from its last checkpoint; unsent claimed rows are recovered as stuck.
  void settlesWithin(Promise.all([worker.stop(), operations.stop(), metricsServer && closeServer(metricsServer)]), config.SHUTDOWN_GRACE_MS)
    .then(async (finished) => {
      await settlesWithin(services.database.close(), CLOSE_MARGIN_MS);
      return finished;
    })
    .then((finished) => {
      clearTimeout(cutScrapes);
      services.logger.info(
        { event: 'shutdown', signal, abandoned: !finished, delivered: worker.totals.delivered, failed: worker.totals.failed, dead: worker.totals.dead },
        finished
          ? `worker stopped (${signal})`
          : `worker stopped (${signal}); work still running after ${config.SHUTDOWN_GRACE_MS} ms was left to its lease and resumes from its checkpoint`,
      );
      process.exit(0);
    });
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
