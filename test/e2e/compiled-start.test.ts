import { mkdtempSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTemplate } from '../../domain/db/data-template.ts';
import { OPERATION_KINDS } from '../../domain/operations/kinds.ts';
import { registry } from '../../registry/index.ts';
import { ROOT, startBuilt, type RunningProcess } from '../helpers/process.ts';

// npm start runs the compiled bundle in .build/ (scripts/build.mjs); these tests run that path,
// where every other end-to-end test runs the sources through tsx.
describe('npm start: compiled JavaScript', () => {
  const running: RunningProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
  });

  it('rebuilds a build older than the sources, then migrates, seeds and serves from .build/', async () => {
    const stamp = join(ROOT, '.build', 'built-at');
    // A build from long ago is stale against any source file: the launcher must rebuild it.
    utimesSync(stamp, new Date(0), new Date(0));
    const dataDir = mkdtempSync(join(tmpdir(), 'acct-built-'));
    const server = startBuilt('serve', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
    running.push(server);
    const [, key] = await server.waitFor(/(sk_test_[0-9A-Za-z]{32})/);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(Date.now() - 10 * 60_000);

    const base = `http://127.0.0.1:${port}/api/v1`;
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const companies = await fetch(`${base}/companies`, { headers: { authorization: `Bearer ${key}` } });
    expect(companies.status).toBe(200);
    // The bundle's folder loaders (static imports, scripts/build.mjs) find the operations and kinds the sources' loaders find.
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const served = Object.values(openapi.paths).flatMap((methods) => Object.values(methods).map((m) => m.operationId));
    const documented = registry.operations.filter((op) => op.surfaces.includes('api')).map((op) => op.id);
    expect(served.sort()).toEqual(documented.sort());
    const [company] = ((await companies.json()) as { data: { companies: { id: string }[] } }).data.companies;
    for (const kind of OPERATION_KINDS) {
      const listed = await fetch(`${base}/companies/${company!.id}/operations?kind=${kind}`, { headers: { authorization: `Bearer ${key}` } });
      expect(listed.status, kind).toBe(200);
    }
    // The MCP tool list, compiled on the first /mcp request rather than at start-up, is served.
    const listed = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(20);
  }, 300_000); // a build and a cold start on the embedded database

  it('a first start copies the migrated template (no initdb) and still seeds its own key and demo per data directory', async () => {
    await makeTemplate(); // what `npm ci` (scripts/build.mjs) made; a no-op when it is there
    const firstStart = async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'acct-built-template-'));
      const server = startBuilt('serve', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
      running.push(server);
      await server.waitFor(/embedded database created from the migrated template/);
      const [, key] = await server.waitFor(/(sk_test_[0-9A-Za-z]{32})/);
      const [, port] = await server.waitFor(/"port":(\d+)/);
      const companies = await fetch(`http://127.0.0.1:${port}/api/v1/companies`, { headers: { authorization: `Bearer ${key}` } });
      expect(companies.status).toBe(200);
      return { key: key!, encryptionKey: readFileSync(join(dataDir, 'encryption.key'), 'utf8') };
    };
    const [one, two] = [await firstStart(), await firstStart()];
    expect(one.key).not.toBe(two.key);
    expect(one.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
    expect(one.encryptionKey).not.toBe(two.encryptionKey);
  }, 300_000);

  it('loads the OAuth server, the MCP SDK server, undici, jose and pino-pretty on first use, not at start-up', async () => {
    const trace = join(mkdtempSync(join(tmpdir(), 'acct-load-trace-')), 'loaded.txt');
    const server = startBuilt('serve', {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-built-lazy-')),
      PORT: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      NODE_OPTIONS: `--import=${join(ROOT, 'test', 'helpers', 'load-trace.mjs')}`,
      LOAD_TRACE_FILE: trace,
    });
    running.push(server);
    const [, key] = await server.waitFor(/(sk_test_[0-9A-Za-z]{32})/);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    const loaded = () => readFileSync(trace, 'utf8');
    const lazy = [
      /node_modules\/oidc-provider\//,
      /node_modules\/undici\//,
      /node_modules\/jose\//,
      /node_modules\/pino-pretty\//,
      /@modelcontextprotocol\/sdk\/dist\/esm\/server\/index\.js/,
    ];
    expect(loaded()).toMatch(/node_modules\/@electric-sql\/pglite\//); // the trace sees packages
    for (const pattern of lazy) expect(loaded(), String(pattern)).not.toMatch(pattern);
    // Anything but a lone tools/call goes through the SDK's Server, which loads now.
    const listed = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(loaded()).toMatch(lazy[4]!);
  }, 300_000);
});
