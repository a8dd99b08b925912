/**
 * `npm run bench mcp`: the same authenticated read as a REST GET and as an MCP tools/call over
 * Streamable HTTP, against one app server, in paired rounds on pinned cores.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { pairedRounds, print, report, writeResult, type Server } from './http/load.ts';
import { openBenchSession } from './http/session.ts';
import { READ_PATH } from './http/targets.ts';

const bench = await openBenchSession();
try {
  const { key } = bench;
  await bench.ready();
  const app = await bench.start('app-pg');
  const pglite = await bench.start('app-pglite');
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
  await bench.close();
}
