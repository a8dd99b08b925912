/**
 * `npm run bench mcp`: the same authenticated reads (the companies list, one journal entry) as a
 * REST GET and as an MCP tools/call over Streamable HTTP, against one app server, in paired rounds
 * on pinned cores.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { pairedRounds, print, report, writeResult, type Server } from './http/load.ts';
import { openBenchSession } from './http/session.ts';
import { seedCommittedEntry, seedFiscalYear } from './http/seed.ts';
import { entryPath, READ_PATH } from './http/targets.ts';

const ENTRY_TOOL = 'ledger.get_journal_entry';

const bench = await openBenchSession();
try {
  const { key, companyId } = bench;
  await seedFiscalYear(bench.app, key, companyId);
  const entryId = await seedCommittedEntry(bench.app, key, companyId);
  await bench.ready();
  const app = await bench.start('app-pg');
  const pglite = await bench.start('app-pglite');
  const rest = (server: Server, name: string, bearer: string, path = READ_PATH) => ({
    name,
    server,
    url: `http://127.0.0.1:${server.port}${path}`,
    headers: { authorization: `Bearer ${bearer}` },
  });
  const mcp = (server: Server, name: string, bearer: string, tool = 'companies.list', args: Record<string, string> = {}) => ({
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
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  const entryRead = mcp(app, 'MCP tools/call entry read, PostgreSQL', key, ENTRY_TOOL, { company_id: companyId, entry_id: entryId });
  // A tool error is still HTTP 200: check the call answers the entry before timing it.
  const probe = (await (await fetch(entryRead.url, { method: 'POST', headers: entryRead.headers, body: entryRead.body })).json()) as {
    result?: { isError?: boolean; structuredContent?: { id?: string } };
  };
  if (probe.result?.isError || probe.result?.structuredContent?.id !== entryId)
    throw new Error(`${ENTRY_TOOL} did not answer the entry: ${JSON.stringify(probe).slice(0, 500)}`);
  const samples = await pairedRounds([
    rest(app, 'REST read, PostgreSQL', key),
    mcp(app, 'MCP tools/call read, PostgreSQL', key),
    rest(app, 'REST entry read, PostgreSQL', key, entryPath(companyId, entryId)),
    entryRead,
    rest(pglite, 'REST read, PGlite', pglite.key!),
    mcp(pglite, 'MCP tools/call read, PGlite', pglite.key!),
  ]);
  const result = report(samples, [
    { name: 'MCP ÷ REST', of: 'MCP tools/call read, PostgreSQL', over: 'REST read, PostgreSQL', goal: 0.8 },
    { name: 'MCP ÷ REST, journal entry', of: 'MCP tools/call entry read, PostgreSQL', over: 'REST entry read, PostgreSQL', goal: 0.8 },
    { name: 'MCP ÷ REST, PGlite', of: 'MCP tools/call read, PGlite', over: 'REST read, PGlite', goal: null },
  ]);
  print('MCP: companies.list and ledger.get_journal_entry over Streamable HTTP vs the same REST GETs', result);
  writeResult('mcp', result);
  if (result.ratios.some((r) => r.met === false)) process.exitCode = 1;
} finally {
  await bench.close();
}
