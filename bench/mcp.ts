/**
 * `npm run bench mcp`: the same authenticated read as a REST GET and as an MCP tools/call over
 * Streamable HTTP, against one app server, in paired rounds on pinned cores.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createServices } from '../domain/bootstrap.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { LOAD_CPU, pairedRounds, pin, print, report, startServer, writeResult, type Server } from './http/load.ts';
import { seedBenchTenant } from './http/seed.ts';
import { READ_PATH } from './http/targets.ts';

const db = await createPostgresDatabase();
const servers: Server[] = [];
try {
  const services = await createServices(
    loadConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn' }),
    { logger: createLogger('warn') },
  );
  const { key } = await seedBenchTenant(services.database.prisma);
  await services.database.close();
  pin(process.pid, LOAD_CPU);

  const env = { BENCH_DATABASE_URL: db.url, BENCH_DATABASE_ANON_URL: db.anonUrl };
  const app = await startServer('app-pg', env);
  servers.push(app);
  const pglite = await startServer('app-pglite', env);
  servers.push(pglite);
  const rest = (server: Server, name: string, bearer: string) => ({
    name,
    server,
    url: `http://127.0.0.1:${server.port}${READ_PATH}`,
    headers: { authorization: `Bearer ${bearer}` },
  });
  const mcp = (server: Server, name: string, bearer: string) => ({
    name,
    server,
    url: `http://127.0.0.1:${server.port}/mcp`,
    method: 'POST' as const,
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'companies.list', arguments: {} } }),
  });
  const samples = await pairedRounds([
    rest(app, 'REST read, PostgreSQL', key),
    mcp(app, 'MCP tools/call read, PostgreSQL', key),
    rest(pglite, 'REST read, PGlite', pglite.key!),
    mcp(pglite, 'MCP tools/call read, PGlite', pglite.key!),
  ]);
  const result = report(samples, [
    { name: 'MCP ÷ REST', of: 'MCP tools/call read, PostgreSQL', over: 'REST read, PostgreSQL', goal: 0.8 },
    { name: 'MCP ÷ REST, PGlite', of: 'MCP tools/call read, PGlite', over: 'REST read, PGlite', goal: null },
  ]);
  print('MCP: companies.list over Streamable HTTP vs GET /api/v1/companies', result);
  writeResult('mcp', result);
  if (result.ratios.some((r) => r.met === false)) process.exitCode = 1;
} finally {
  for (const server of servers) server.stop();
  await db.drop();
}
