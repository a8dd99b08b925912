/**
 * `npm run bench rest`: an authenticated read (GET /api/v1/companies) through the full app against
 * a raw-`pg` handler doing the same work, and the app's chain against bare Hono — all in one run,
 * paired rounds, pinned cores. The embedded PGlite default is reported beside PostgreSQL.
 */
import { createServices } from '../domain/bootstrap.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { LOAD_CPU, pairedRounds, pin, print, report, startServer, writeResult, type Server } from './http/load.ts';
import { seedBenchTenant } from './http/seed.ts';
import { CHAIN_PATH, READ_PATH } from './http/targets.ts';

const db = await createPostgresDatabase();
const servers: Server[] = [];
try {
  // Migrate and seed once here; the servers only connect.
  const services = await createServices(
    loadConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn' }),
    { logger: createLogger('warn') },
  );
  const { key } = await seedBenchTenant(services.database.prisma);
  await services.database.close();
  pin(process.pid, LOAD_CPU);

  const env = { BENCH_DATABASE_URL: db.url, BENCH_DATABASE_ANON_URL: db.anonUrl };
  const start = async (target: string) => {
    const server = await startServer(target, env);
    servers.push(server);
    return server;
  };
  const [bare, middleware, chain, rawPg, rawPgCounted, appPg, rawPglite, appPglite] = [
    await start('bare-hono'),
    await start('middleware'),
    await start('chain'),
    await start('raw-pg'),
    await start('raw-pg-counted'),
    await start('app-pg'),
    await start('raw-pglite'),
    await start('app-pglite'),
  ] as Server[] as [Server, Server, Server, Server, Server, Server, Server, Server];
  const read = (server: Server, name: string, bearer = key) => ({
    name,
    server,
    url: `http://127.0.0.1:${server.port}${READ_PATH}`,
    headers: { authorization: `Bearer ${bearer}` },
  });
  const samples = await pairedRounds([
    { name: 'bare Hono (constant)', server: bare, url: `http://127.0.0.1:${bare.port}${CHAIN_PATH}` },
    { name: 'request id + frozen headers', server: middleware, url: `http://127.0.0.1:${middleware.port}${CHAIN_PATH}` },
    { name: 'app chain (no database)', server: chain, url: `http://127.0.0.1:${chain.port}${CHAIN_PATH}` },
    read(rawPg, 'raw pg read'),
    read(rawPgCounted, 'raw pg read + count'),
    read(appPg, 'app read, PostgreSQL'),
    read(rawPglite, 'raw PGlite read', rawPglite.key),
    read(appPglite, 'app read, PGlite', appPglite.key),
  ]);
  const result = report(samples, [
    { name: 'app ÷ raw pg', of: 'app read, PostgreSQL', over: 'raw pg read', goal: 0.8 },
    // Context: the same work including an exact per-request count.
    { name: 'app ÷ raw pg + count', of: 'app read, PostgreSQL', over: 'raw pg read + count', goal: null },
    { name: 'middleware ÷ bare Hono', of: 'request id + frozen headers', over: 'bare Hono (constant)', goal: 0.8 },
    // Context: the whole pipeline without a database.
    { name: 'app chain ÷ bare Hono', of: 'app chain (no database)', over: 'bare Hono (constant)', goal: null },
    { name: 'app ÷ raw, PGlite', of: 'app read, PGlite', over: 'raw PGlite read', goal: null },
  ]);
  print('REST: authenticated GET /api/v1/companies', result);
  writeResult('rest', result);
  if (result.ratios.some((r) => r.met === false)) process.exitCode = 1;
} finally {
  for (const server of servers) server.stop();
  await db.drop();
}
