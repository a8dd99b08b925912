import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { allText, connectInProcess, dataOf, firstJson, postMcp } from '../../helpers/mcp-client.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { MCP_RESOURCE_URIS } from '../../../cli/mcp-content.ts';
import { toolName } from '../../../mcp/naming.ts';
import { registry } from '../../../registry/index.ts';

// A fixed clock makes two writes of the same thing produce byte-identical data on both paths.
const FIXED_NOW = new Date('2026-11-21T10:00:00.000Z');
const HOOK_URL = 'https://127.0.0.1:9/hook';

describe.each(DB_TARGETS)('MCP discovery mode, actionable results, prompts and resources (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let direct: Client;
  let discover: Client;
  const clients: Client[] = [];
  const connect = async (key: string, query = '') => {
    const client = await connectInProcess(app, { key, query });
    clients.push(client);
    return client;
  };
  /** invoke_operation's call, as an agent in discovery mode makes it. */
  const invoke = (client: Client, name: string, args: Record<string, unknown>) =>
    client.callTool({ name: 'invoke_operation', arguments: { name, arguments: args } });
  const withoutRequestId = (body: { error: Record<string, unknown> }) => ({ ...body, error: { ...body.error, request_id: 'x' } });

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => FIXED_NOW, config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128' } });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    direct = await connect(tenant.key);
    discover = await connect(tenant.key, '?mode=discover');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('lists three tools and finds, describes and invokes operations through them', async () => {
    expect((await discover.listTools()).tools.map((tool) => tool.name)).toEqual(['search_operations', 'describe_operation', 'invoke_operation']);
    expect(discover.getInstructions()).toMatch(/search_operations.*describe_operation.*invoke_operation/s);

    const found = await discover.callTool({ name: 'search_operations', arguments: { query: 'webhook deliveries' } });
    expect(found.isError, allText(found)).toBeFalsy();
    expect(dataOf(found).operations[0]).toEqual({
      name: 'webhooks.list_deliveries',
      summary: "List a webhook's deliveries",
      group: 'webhooks',
      risk: 'L0',
      read_only: true,
    });
    const companies = await discover.callTool({ name: 'search_operations', arguments: { group: 'companies' } });
    const inGroup = registry.operations.filter((op) => op.group === 'companies' && op.surfaces.includes('mcp')).map((op) => toolName(op, 'namespaced'));
    expect(dataOf(companies).operations.map((o: { name: string }) => o.name)).toEqual(inGroup);
    expect(inGroup).toEqual(expect.arrayContaining(['companies.list', 'companies.update']));

    const described = await discover.callTool({ name: 'describe_operation', arguments: { name: 'webhooks.create' } });
    const description = dataOf(described);
    expect(description).toMatchObject({ name: 'webhooks.create', required_scopes: ['webhooks:manage'], risk: 'L2', read_only: false });
    expect(Object.keys(description.input_schema.properties)).toEqual(expect.arrayContaining(['company_id', 'event_type', 'idempotency_key', 'reveal_secret']));
    // Shared argument descriptions, kept out of each tool in tools mode, are written back here.
    expect(description.input_schema.properties.idempotency_key.description).toMatch(/retrying a write safe/);
    expect(description.example_arguments).toMatchObject({ event_type: 'journal_entry.committed', idempotency_key: '<a fresh UUID>' });
    // The operation id and the other variant's name find the same operation.
    expect(dataOf(await discover.callTool({ name: 'describe_operation', arguments: { name: 'createWebhook' } })).name).toBe('webhooks.create');
    expect(dataOf(await discover.callTool({ name: 'describe_operation', arguments: { name: 'create_webhook' } })).name).toBe('webhooks.create');

    // Dynamic toolsets need a session; stateless HTTP refuses the mode, naming the ones it has.
    const dynamic = await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: tenant.key, query: '?mode=dynamic' });
    expect(dynamic.status).toBe(400);
    expect(dynamic.body.error).toMatchObject({ code: 'VALIDATION_ERROR', valid_alternatives: ['tools', 'discover'] });

    const unknown = await invoke(discover, 'webhooks.craete', {});
    expect(unknown.isError).toBe(true);
    expect(firstJson(unknown).error).toMatchObject({ code: 'NOT_FOUND', valid_alternatives: expect.arrayContaining(['webhooks.create']) });
  });

  it('invoke_operation returns byte-identical structuredContent and the same errors as the direct tool', async () => {
    for (const [name, args] of [
      ['companies.list', { limit: 1 }],
      ['companies.update', { company_id: tenant.companyId, name: 'Same AB' }],
      ['webhooks.list', { company_id: tenant.companyId }],
    ] as const) {
      const viaDirect = await direct.callTool({ name, arguments: args });
      const viaInvoke = await invoke(discover, name, args);
      expect(viaDirect.isError, allText(viaDirect)).toBeFalsy();
      expect(JSON.stringify(viaInvoke.structuredContent)).toBe(JSON.stringify(viaDirect.structuredContent));
      expect(viaInvoke.content).toEqual(viaDirect.content);
    }
    const reader = (await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['companies:read'] })).key;
    const readerDirect = await connect(reader);
    const readerDiscover = await connect(reader, '?mode=discover');
    const args = { company_id: tenant.companyId, name: 'x' };
    const denied = [await readerDirect.callTool({ name: 'companies.update', arguments: args }), await invoke(readerDiscover, 'companies.update', args)];
    expect(firstJson(denied[0]!).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'companies:write' });
    expect(withoutRequestId(firstJson(denied[1]!))).toEqual(withoutRequestId(firstJson(denied[0]!)));
    // A key sees only what it may call in search results too.
    const readerSearch = await readerDiscover.callTool({ name: 'search_operations', arguments: {} });
    expect(dataOf(readerSearch).operations.map((o: { name: string }) => o.name)).not.toContain('companies.update');
    // Wrong argument names: the same validation error, naming the expected arguments.
    const wrong = [
      await direct.callTool({ name: 'webhooks.list', arguments: { companyId: tenant.companyId } }),
      await invoke(discover, 'webhooks.list', { companyId: tenant.companyId }),
    ];
    expect(firstJson(wrong[0]!).error).toMatchObject({ code: 'VALIDATION_ERROR', valid_alternatives: ['company_id'] });
    expect(firstJson(wrong[0]!).error.message).toMatch(/did you mean company_id/);
    expect(withoutRequestId(firstJson(wrong[1]!))).toEqual(withoutRequestId(firstJson(wrong[0]!)));
  });

  it('says which tool follows up a 202, and withholds a shown-once secret on request', async () => {
    const body = { event_type: 'journal_entry.committed', webhook_url: HOOK_URL, name: 'poll me' };
    const key = randomUUID();
    const hidden = await direct.callTool({
      name: 'webhooks.create',
      arguments: { company_id: tenant.companyId, ...body, idempotency_key: key, reveal_secret: false },
    });
    expect(hidden.isError, allText(hidden)).toBeFalsy();
    const webhook = dataOf(hidden);
    expect(webhook).not.toHaveProperty('secret');
    expect(allText(hidden)).toMatch(/secret left out \(reveal_secret: false\)/);
    // The key's owner can still read it once: REST replays the stored answer, secret included.
    const replay = await call(app, 'POST', `/api/v1/companies/${tenant.companyId}/webhooks`, { key: tenant.key, body, headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toMatchObject({ id: webhook.id, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(allText(hidden)).not.toContain(replay.body.data.secret);
    const tools = (await direct.listTools()).tools;
    expect(tools.find((tool) => tool.name === 'webhooks.create')!.description).toMatch(/shows `secret` to you \(the model\); pass reveal_secret: false/);

    const queued = await direct.callTool({ name: 'webhooks.test', arguments: { company_id: tenant.companyId, webhook_id: webhook.id } });
    expect(queued.isError, allText(queued)).toBeFalsy();
    const followUp = JSON.stringify({ company_id: tenant.companyId, webhook_id: webhook.id });
    expect(allText(queued)).toContain(`Accepted (202): queued, not done yet. Follow it up with webhooks.list_deliveries ${followUp}.`);
    const listed = await direct.callTool({ name: 'webhooks.list_deliveries', arguments: JSON.parse(followUp) });
    expect(dataOf(listed).deliveries.map((d: { id: string }) => d.id)).toContain(dataOf(queued).id);
  });

  it('serves each published skill as a prompt and the event catalogue and OpenAPI document as resources', async () => {
    const index = await call(app, 'GET', '/.well-known/skills/index.json');
    const { prompts } = await direct.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(index.body.skills.map((s: { name: string }) => s.name));
    const prompt = await direct.getPrompt({ name: 'accounting-webhooks' });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    const skill = await call(app, 'GET', '/.well-known/skills/accounting-webhooks/SKILL.md');
    expect(text.endsWith(skill.text)).toBe(true);
    expect(text).toMatch(/Create a webhook subscription → `webhooks\.create`/);
    expect(text).toMatch(/idempotency_key/);
    const discoverPrompt = await discover.getPrompt({ name: 'accounting-webhooks' });
    expect((discoverPrompt.messages[0]!.content as { text: string }).text).toMatch(/through `invoke_operation`/);
    await expect(direct.getPrompt({ name: 'accounting-webhook' })).rejects.toMatchObject({
      data: { valid_alternatives: expect.arrayContaining(['accounting-webhooks']) },
    });

    const { resources } = await direct.listResources();
    expect(resources.map((r) => r.uri)).toEqual([MCP_RESOURCE_URIS.events, MCP_RESOURCE_URIS.openapi]);
    const openapi = await direct.readResource({ uri: MCP_RESOURCE_URIS.openapi });
    const served = await call(app, 'GET', '/api/v1/openapi.json');
    expect(JSON.parse((openapi.contents[0] as { text: string }).text)).toEqual(served.body);
    const events = await direct.readResource({ uri: MCP_RESOURCE_URIS.events });
    const page = await call(app, 'GET', '/docs/reference/event-types.md');
    expect((events.contents[0] as { text: string }).text).toBe(page.text);
    await expect(direct.readResource({ uri: 'accounting://nope' })).rejects.toMatchObject({ code: -32002 });
  });
});
