// One benchmark server in its own process (pinned to its own core by the parent). Prints one JSON
// line `{ port, key? }` once listening; a PGlite target seeds its own embedded database first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { createServices } from '../../domain/bootstrap.ts';
import { loadConfig } from '../../domain/kernel/config.ts';
import { createLogger } from '../../domain/kernel/logger.ts';
import { TEST_ENCRYPTION_KEY } from '../../test/helpers/db.ts';
import { seedBenchTenant } from './seed.ts';
import { bareHonoApp, chainApp, fullApp, middlewareApp, rawPgApp, rawPgliteApp } from './targets.ts';

const target = process.argv[2] ?? '';
const url = process.env.BENCH_DATABASE_URL ?? '';
const anonUrl = process.env.BENCH_DATABASE_ANON_URL ?? '';
// The parent's key (TEST_ENCRYPTION_KEY is random per process): the database's key check recorded it.
const encryptionKey = process.env.BENCH_ENCRYPTION_KEY ?? TEST_ENCRYPTION_KEY;
const logger = createLogger('warn');

const postgresServices = () =>
  createServices(loadConfig({ DATABASE_URL: url, DATABASE_ANON_URL: anonUrl, ENCRYPTION_KEY: encryptionKey, LOG_LEVEL: 'warn', DISPATCHER_TIMER: 'false' }), {
    logger,
    migrate: false,
  });

/** The embedded default as `npm start` runs it: PGlite in a data directory on disk. */
async function pgliteServices() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const services = await createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', DISPATCHER_TIMER: 'false' }), { logger });
  const { key } = await seedBenchTenant(services.database.prisma);
  return { services, key };
}

let app: Hono;
let key: string | undefined;
switch (target) {
  case 'bare-hono':
    app = bareHonoApp();
    break;
  case 'middleware':
    app = middlewareApp();
    break;
  case 'chain':
    app = chainApp(await postgresServices()) as unknown as Hono;
    break;
  case 'raw-pg':
    app = rawPgApp(url);
    break;
  case 'raw-pg-counted':
    app = rawPgApp(url, true);
    break;
  case 'app-pg':
    app = fullApp(await postgresServices()) as unknown as Hono;
    break;
  case 'raw-pglite': {
    const seeded = await pgliteServices();
    const pglite = seeded.services.database.pglite;
    if (!pglite) throw new Error('expected the embedded database');
    app = rawPgliteApp(pglite);
    key = seeded.key;
    break;
  }
  case 'app-pglite': {
    const seeded = await pgliteServices();
    app = fullApp(seeded.services) as unknown as Hono;
    key = seeded.key;
    break;
  }
  default:
    throw new Error(`unknown benchmark target ${target}`);
}

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`${JSON.stringify({ port: info.port, ...(key && { key }) })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
