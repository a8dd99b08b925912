import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, startEntry, type RunningProcess } from '../../helpers/process.ts';
import { seedDataDir, type SeededDataDir } from '../../helpers/mcp-seed.ts';
import { allText, dataOf, firstJson } from '../../helpers/mcp-client.ts';
import { registry } from '../../../registry/index.ts';

const run = promisify(execFile);
const HAS_WEBHOOKS = registry.byId('createWebhook') !== undefined && registry.byId('listWebhookDeliveries') !== undefined;
if (!HAS_WEBHOOKS) console.warn('createWebhook / listWebhookDeliveries are not in the registry yet: the webhook MCP calls are skipped.');

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const INSPECTOR = join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'index.js');
// Loopback resolves to 127.0.0.1/::1, which this setting lets webhooks target (development and tests only).
const ENV = { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128', LOG_LEVEL: 'info' };
const HOOK_URL = 'https://localhost:9/hook';

/** The calls the issue asks for, over whichever transport the clients use. */
async function exerciseTools(client: Client, narrow: Client, companyId: string): Promise<void> {
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  expect(names).toContain('companies.list');
  const companies = await client.callTool({ name: 'companies.list', arguments: {} });
  expect(companies.isError, allText(companies)).toBeFalsy();
  expect(dataOf(companies).companies.map((c: { id: string }) => c.id)).toEqual([companyId]);
  if (!HAS_WEBHOOKS) return;

  const args = { companyId, event_type: 'journal_entry.committed', webhook_url: HOOK_URL, name: 'e2e hook', idempotency_key: randomUUID() };
  const created = await client.callTool({ name: 'webhooks.create', arguments: args });
  expect(created.isError, allText(created)).toBeFalsy();
  const webhook = dataOf(created);
  expect(webhook).toMatchObject({ company_id: companyId, webhook_url: HOOK_URL, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
  const deliveries = await client.callTool({ name: 'webhooks.list_deliveries', arguments: { companyId, id: webhook.id } });
  expect(deliveries.isError, allText(deliveries)).toBeFalsy();
  expect(deliveries.structuredContent).toEqual({ deliveries: expect.any(Array) });

  expect((await narrow.listTools()).tools.map((tool) => tool.name)).not.toContain('webhooks.create');
  const denied = await narrow.callTool({ name: 'webhooks.create', arguments: { ...args, idempotency_key: randomUUID() } });
  expect(denied.isError).toBe(true);
  expect(firstJson(denied).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'webhooks:manage', recovery_hint: expect.any(String) });
}

describe('MCP end to end: the real server over Streamable HTTP and stdio', () => {
  let seed: SeededDataDir;
  let server: RunningProcess;
  let url: string;
  const clients: Client[] = [];
  const processes: RunningProcess[] = [];

  beforeAll(async () => {
    seed = await seedDataDir();
    server = startEntry('cli/serve.ts', { DATA_DIR: seed.dataDir, PORT: '0', ...ENV });
    processes.push(server);
    const [, port] = await server.waitFor(/"port":(\d+)/);
    url = `http://127.0.0.1:${port}/mcp`;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.all(processes.map((p) => p.stop()));
  });

  const httpClient = async (key: string): Promise<Client> => {
    const client = new Client({ name: 'e2e-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    clients.push(client);
    return client;
  };

  it('serves the SDK client over Streamable HTTP with a bearer key', async () => {
    await exerciseTools(await httpClient(seed.key), await httpClient(seed.noWebhooksKey), seed.companyId);
    const anonymous = new Client({ name: 'e2e-anon', version: '1.0.0' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|UNAUTHENTICATED/);
  });

  it('works with the MCP Inspector CLI (list and call, bearer header)', async () => {
    // The inspector looks for ../package.json relative to its working directory: run it from a subfolder.
    const inspect = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [INSPECTOR, url, '--header', `Authorization: Bearer ${seed.key}`, ...args], { cwd: join(ROOT, 'test') });
      return JSON.parse(stdout);
    };
    const listed = await inspect('--method', 'tools/list');
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toContain('companies.list');
    const called = await inspect('--method', 'tools/call', '--tool-name', 'companies.list', '--tool-arg', 'limit=1');
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent.companies[0].id).toBe(seed.companyId);
  });

  it('serves the same tools over stdio (npm run mcp) for the key in API_KEY, with only protocol on stdout', async () => {
    await server.stop(); // one process at a time on an embedded database
    let stderr = '';
    const transport = new StdioClientTransport({
      command: TSX,
      args: [join(ROOT, 'cli', 'mcp.ts')],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: seed.dataDir, API_KEY: seed.key, ...ENV },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error); // a non-protocol line on stdout would land here
    await client.connect(transport);
    clients.push(client);

    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('companies.list');
    const companies = await client.callTool({ name: 'companies.list', arguments: {} });
    expect(dataOf(companies).companies[0].id).toBe(seed.companyId);
    if (HAS_WEBHOOKS) {
      const args = { companyId: seed.companyId, event_type: 'journal_entry.committed', webhook_url: HOOK_URL, name: 'stdio hook', idempotency_key: randomUUID() };
      const created = await client.callTool({ name: 'webhooks.create', arguments: args });
      expect(created.isError, allText(created)).toBeFalsy();
      const deliveries = await client.callTool({ name: 'webhooks.list_deliveries', arguments: { companyId: seed.companyId, id: dataOf(created).id } });
      expect(deliveries.isError, allText(deliveries)).toBeFalsy();
    }
    expect(errors).toEqual([]);
    expect(stderr).toMatch(/MCP server ready/);
    expect(stderr).not.toContain(seed.key);
    await client.close();
  }, 120_000); // a process start on the embedded database; slow on a loaded two-core machine

  it('writes nothing but JSON-RPC to stdout, names a missing scope over stdio, and refuses a bad key with one line', async () => {
    // Raw JSON lines, so every byte on stdout is accounted for. (The server is stopped: see above.)
    const mcp = startEntry('cli/mcp.ts', { DATA_DIR: seed.dataDir, API_KEY: seed.noWebhooksKey, ...ENV });
    processes.push(mcp);
    const send = (message: unknown) => mcp.child.stdin!.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const create = { companyId: seed.companyId, event_type: 'journal_entry.committed', webhook_url: HOOK_URL, name: 'x', idempotency_key: randomUUID() };
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: HAS_WEBHOOKS ? 'webhooks.create' : 'companies.list', arguments: HAS_WEBHOOKS ? create : {} } });
    await mcp.waitFor(/"id":2/);
    mcp.child.stdin!.end(); // the client going away ends the session and the process
    await once(mcp.child, 'exit');
    const lines = mcp.stdout().trim().split('\n');
    expect(lines).toHaveLength(2);
    const messages = lines.map((line) => JSON.parse(line));
    expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([['2.0', 1], ['2.0', 2]]);
    if (HAS_WEBHOOKS) {
      expect(messages[1].result.isError).toBe(true);
      expect(firstJson(messages[1].result).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'webhooks:manage' });
    }
    expect(mcp.stderr()).toMatch(/"msg":"MCP server ready"/);

    const bad = startEntry('cli/mcp.ts', { DATA_DIR: seed.dataDir, API_KEY: `sk_test_${'x'.repeat(32)}` });
    processes.push(bad);
    const [code] = (await once(bad.child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(bad.stdout()).toBe('');
    expect(bad.stderr().trim().split('\n').at(-1)).toMatch(/^API_KEY is missing, invalid or revoked/);
  }, 120_000);
});
