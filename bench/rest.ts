/**
 * `npm run bench rest`: authenticated reads through the full app against a raw-`pg` handler doing
 * the same work in the same round trips — GET /api/v1/companies and GET of one committed journal
 * entry — and the app's chain against bare Hono, all in one run, paired rounds, pinned cores.
 * The embedded PGlite default is reported beside PostgreSQL.
 */
import { pairedRounds, print, report, writeResult, type Server } from './http/load.ts';
import { seedCommittedEntry, seedFiscalYear } from './http/seed.ts';
import { openBenchSession } from './http/session.ts';
import { CHAIN_PATH, entryPath, READ_PATH } from './http/targets.ts';

const bench = await openBenchSession();
try {
  const { key, companyId } = bench;
  await seedFiscalYear(bench.app, key, companyId);
  const entryId = await seedCommittedEntry(bench.app, key, companyId);
  await bench.ready();

  const [bare, middleware, chain, rawPg, rawPgCounted, appPg, rawPglite, appPglite] = [
    await bench.start('bare-hono'),
    await bench.start('middleware'),
    await bench.start('chain'),
    await bench.start('raw-pg'),
    await bench.start('raw-pg-counted'),
    await bench.start('app-pg'),
    await bench.start('raw-pglite'),
    await bench.start('app-pglite'),
  ] as Server[] as [Server, Server, Server, Server, Server, Server, Server, Server];
  const read = (server: Server, name: string, bearer = key, path = READ_PATH) => ({
    name,
    server,
    url: `http://127.0.0.1:${server.port}${path}`,
    headers: { authorization: `Bearer ${bearer}` },
  });
  const entry = entryPath(companyId, entryId);
  const samples = await pairedRounds([
    { name: 'bare Hono (constant)', server: bare, url: `http://127.0.0.1:${bare.port}${CHAIN_PATH}` },
    { name: 'request id + frozen headers', server: middleware, url: `http://127.0.0.1:${middleware.port}${CHAIN_PATH}` },
    { name: 'app chain (no database)', server: chain, url: `http://127.0.0.1:${chain.port}${CHAIN_PATH}` },
    read(rawPg, 'raw pg read'),
    read(rawPgCounted, 'raw pg read + count'),
    read(appPg, 'app read, PostgreSQL'),
    read(rawPg, 'raw pg entry read', key, entry),
    read(appPg, 'app entry read, PostgreSQL', key, entry),
    read(rawPglite, 'raw PGlite read', rawPglite.key),
    read(appPglite, 'app read, PGlite', appPglite.key),
  ]);
  const result = report(samples, [
    { name: 'app ÷ raw pg', of: 'app read, PostgreSQL', over: 'raw pg read', goal: 0.8 },
    // Context: the same work including an exact per-request count.
    { name: 'app ÷ raw pg + count', of: 'app read, PostgreSQL', over: 'raw pg read + count', goal: null },
    { name: 'app ÷ raw pg, journal entry', of: 'app entry read, PostgreSQL', over: 'raw pg entry read', goal: 0.8 },
    { name: 'middleware ÷ bare Hono', of: 'request id + frozen headers', over: 'bare Hono (constant)', goal: 0.8 },
    // Context: the whole pipeline without a database.
    { name: 'app chain ÷ bare Hono', of: 'app chain (no database)', over: 'bare Hono (constant)', goal: null },
    { name: 'app ÷ raw, PGlite', of: 'app read, PGlite', over: 'raw PGlite read', goal: null },
  ]);
  print('REST: authenticated GET /api/v1/companies and GET of one journal entry', result);
  writeResult('rest', result);
  if (result.ratios.some((r) => r.met === false)) process.exitCode = 1;
} finally {
  await bench.close();
}
