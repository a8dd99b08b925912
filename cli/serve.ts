import { createServices } from '../domain/bootstrap.ts';
import { seedDemo } from '../domain/users/seed.ts';
import { listen } from '../rest/server.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';
import { buildApp } from './build-app.ts';
import { startWorker } from '../dispatcher/worker.ts';

const config = configFromEnvironment();
const services = await startupStep(() => createServices(config));
// Built before seeding, so a setting the app refuses stops start-up before any key is printed.
const app = await startupStep(async () => buildApp(services));

if (config.embedded || config.SEED_DEMO) {
  const demo = await seedDemo(services.database.prisma);
  if (demo) {
    // Shown once: only the key's hash is stored.
    process.stdout.write(
      [
        '',
        'Created a demo user, a sandbox company and a test API key (shown only now; keep it):',
        `  ${demo.key}`,
        'Try:',
        `  curl -s -H "Authorization: Bearer ${demo.key}" http://localhost:${config.PORT}/api/v1/companies`,
        '',
      ].join('\n') + '\n',
    );
  }
}

const { server, port } = await listen(app, config.PORT, config.HOST);
services.logger.info({ port, host: config.HOST, database: services.database.kind }, 'listening');

// Deliveries go out from this process unless separate workers run (DISPATCHER_TIMER=false).
const worker = config.DISPATCHER_TIMER ? startWorker(services) : null;

const shutdown = (): void => {
  server.close();
  void (worker?.stop() ?? Promise.resolve())
    .then(() => services.database.close())
    .finally(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
