import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { allText, connectInProcess, dataOf, firstJson, metaOf } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { createMembership } from '../../../domain/users/admin.ts';

const HAS_WEBHOOKS = registry.byId('createWebhook') !== undefined && registry.byId('listWebhookDeliveries') !== undefined;
// A fixed clock makes two writes of the same thing produce byte-identical data on both surfaces.
const FIXED_NOW = new Date('2026-11-21T10:00:00.000Z');
// An IP literal needs no DNS; the test config allows loopback targets (WEBHOOK_ALLOWED_PRIVATE_CIDRS).
const HOOK_URL = 'https://127.0.0.1:9/hook';

describe.each(DB_TARGETS)('MCP tools/call: the same pipeline and the same data as REST (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let mcp: Client;
  const clients: Client[] = [];
  const connect = async (key: string) => {
    const client = await connectInProcess(app, { key });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => FIXED_NOW, config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128' } });
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
    mcp = await connect(tenant.key);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('returns REST data as structuredContent and as the JSON text, for a list and for a write', async () => {
    const rest = await call(app, 'GET', '/api/v1/companies', { key: tenant.key });
    const tool = await mcp.callTool({ name: 'companies.list', arguments: {} });
    expect(tool.isError).toBeFalsy();
    // A list's structuredContent is REST's data plus the next page's cursor (null: last page).
    expect(tool.structuredContent).toEqual({ ...rest.body.data, next_cursor: null });
    expect(firstJson(tool)).toEqual(tool.structuredContent);

    const body = { name: 'Parity AB', entity_type: 'aktiebolag' };
    const restUpdate = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body });
    const toolUpdate = await mcp.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, ...body } });
    expect(restUpdate.status).toBe(200);
    expect(toolUpdate.structuredContent).toEqual(restUpdate.body.data);
    // REST's meta travels in _meta: request id, version and the audit entry of the write.
    expect(toolUpdate._meta).toMatchObject({
      request_id: expect.stringMatching(/^req_/),
      api_version: restUpdate.body.meta.api_version,
      audit: { action: 'updateCompany' },
    });
    const audit = await t.services.database.prisma.auditLog.findUnique({ where: { id: metaOf(toolUpdate).audit!.id } });
    expect(audit).toMatchObject({ action: 'updateCompany', companyId: tenant.companyId, apiKeyId: tenant.apiKeyId, requestId: metaOf(toolUpdate).request_id });
  });

  it('pages like REST: pagination in _meta and as a line the model can act on', async () => {
    const db = t.services.database.prisma;
    for (let i = 0; i < 2; i++) {
      await createMembership(db, { userId: tenant.userId, companyId: await makeCompany(db), role: 'member' });
    }
    const restAll = await call(app, 'GET', '/api/v1/companies?limit=200', { key: tenant.key });
    const first = await mcp.callTool({ name: 'companies.list', arguments: { limit: 2 } });
    const page = metaOf(first).pagination!;
    expect(page.has_more).toBe(true);
    expect(allText(first)).toContain(`call companies.list again with the same arguments and cursor="${page.next_cursor}"`);
    const restFirst = await call(app, 'GET', '/api/v1/companies?limit=2', { key: tenant.key });
    expect(first.structuredContent).toEqual({ ...restFirst.body.data, next_cursor: page.next_cursor });
    expect(metaOf(first).pagination).toEqual(restFirst.body.meta.pagination);
    const second = await mcp.callTool({ name: 'companies.list', arguments: { limit: 2, cursor: dataOf(first).next_cursor } });
    expect(metaOf(second).pagination!.has_more).toBe(false);
    expect(dataOf(second).next_cursor).toBeNull();
    expect(allText(second)).toContain('last page');
    const ids = [...dataOf(first).companies, ...dataOf(second).companies].map((c: { id: string }) => c.id);
    expect(ids).toEqual(restAll.body.data.companies.map((c: { id: string }) => c.id));
  });

  it('returns scope, validation and tenancy failures as tool errors carrying the catalogue body', async () => {
    const db = t.services.database.prisma;
    const reader = await connect((await makeKey(db, tenant.userId, { scopes: ['companies:read'] })).key);
    const scope = await reader.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'x' } });
    expect(scope.isError).toBe(true);
    expect(scope.structuredContent).toBeUndefined();
    expect(firstJson(scope).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
      required_scope: 'companies:write',
      recovery_hint: expect.any(String),
      docs_url: expect.stringMatching(/^https:\/\//),
    });

    // Error paths name the tool's arguments, not REST's `query.limit`.
    const limit = await mcp.callTool({ name: 'companies.list', arguments: { limit: 0 } });
    expect(firstJson(limit).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'limit' }] });
    const empty = await mcp.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId } });
    expect(firstJson(empty).error.code).toBe('VALIDATION_ERROR');
    expect(firstJson(empty).error.message).not.toMatch(/body\./);
    // An argument no schema declares is refused before anything runs, naming the expected ones.
    const typo = await mcp.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, nmae: 'x' } });
    expect(firstJson(typo).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'nmae', message: 'Unknown argument.' }],
      valid_alternatives: ['company_id', 'name', 'entity_type', 'idempotency_key', 'dry_run'],
    });
    const dry = await mcp.callTool({ name: 'companies.list', arguments: { dry_run: true } });
    expect(firstJson(dry).error.details[0]).toEqual({ path: 'dry_run', message: 'Unknown argument.' });

    const strip = (body: { error: object }) => ({ ...body, error: { ...body.error, request_id: 'x' } });
    const foreign = await mcp.callTool({ name: 'companies.update', arguments: { company_id: await makeCompany(db), name: 'x' } });
    const unknown = await mcp.callTool({ name: 'companies.update', arguments: { company_id: randomUUID(), name: 'x' } });
    const rest = await call(app, 'PATCH', `/api/v1/companies/${randomUUID()}`, { key: tenant.key, body: { name: 'x' } });
    expect(firstJson(foreign).error.code).toBe('NOT_FOUND');
    expect(strip(firstJson(foreign))).toEqual(strip(firstJson(unknown)));
    // The same error as REST, with the hint in MCP's words (a tool to call, not a URL).
    const { recovery_hint: mcpHint, ...mcpError } = strip(firstJson(unknown)).error as Record<string, unknown>;
    const { recovery_hint: restHint, ...restError } = strip(rest.body).error as Record<string, unknown>;
    expect(mcpError).toEqual(restError);
    expect(restHint).toMatch(/GET \/api\/v1\/companies/);
    expect(mcpHint).toMatch(/companies\.list/);

    await expect(mcp.callTool({ name: 'companies.lst', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      data: { recovery_hint: expect.stringMatching(/tools\/list/), valid_alternatives: expect.arrayContaining(['companies.list']) },
    });
  });

  it('logs MCP denials as REST does', async () => {
    t.logs.lines.length = 0;
    const narrow = await connect((await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['events:read'] })).key);
    await narrow.callTool({ name: 'companies.list', arguments: {} });
    await mcp.callTool({ name: 'companies.update', arguments: { company_id: randomUUID(), name: 'x' } });
    await mcp.callTool({ name: 'companies.list', arguments: { limit: 'many' } });
    const denials = t.logs.lines.filter((line) => line.event === 'request_denied' && line.surface === 'mcp');
    expect(denials.map((d) => d.reason)).toEqual(['insufficient_scope', 'membership', 'validation']);
    expect(denials.every((d) => d.client === '203.0.113.0/24')).toBe(true);
  });

  it('shares idempotency keys, dry runs and the audit trail with REST', async () => {
    const key = randomUUID();
    const args = { company_id: tenant.companyId, name: 'Idempotent AB', idempotency_key: key };
    const first = await mcp.callTool({ name: 'companies.update', arguments: args });
    const again = await mcp.callTool({ name: 'companies.update', arguments: args });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(metaOf(again).idempotent_replayed).toBe(true);
    expect(allText(again)).toMatch(/idempotency_key was used before/);
    // One pipeline: the same key over REST replays the MCP call's stored result.
    const rest = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, {
      key: tenant.key,
      body: { name: 'Idempotent AB' },
      headers: { 'idempotency-key': key },
    });
    expect(rest.headers.get('idempotent-replayed')).toBe('true');
    expect(rest.body.data).toEqual(first.structuredContent);
    const reused = await mcp.callTool({ name: 'companies.update', arguments: { ...args, name: 'Other AB' } });
    expect(firstJson(reused).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const badKey = await mcp.callTool({ name: 'companies.update', arguments: { ...args, idempotency_key: 42 } });
    expect(firstJson(badKey).error.code).toBe('VALIDATION_ERROR');

    const audits = await t.services.database.prisma.auditLog.count();
    const dry = await mcp.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'Dry AB', dry_run: true } });
    expect(dry.structuredContent).toMatchObject({ name: 'Dry AB' });
    expect(metaOf(dry).dry_run).toBe(true);
    expect(metaOf(dry)).not.toHaveProperty('audit');
    expect(allText(dry)).toMatch(/nothing was changed/);
    expect(await t.services.database.prisma.auditLog.count()).toBe(audits);
    const after = await call(app, 'GET', '/api/v1/companies', { key: tenant.key });
    expect(after.body.data.companies[0].name).toBe('Idempotent AB');
  });

  it("counts every MCP request, tool call or not, against the key's REST rate limit", async () => {
    const limited = await makeKey(t.services.database.prisma, tenant.userId, { rateLimitPerMinute: 5 });
    const client = await connect(limited.key); // initialize and the initialized notification: 2
    expect((await client.listTools()).tools.length).toBeGreaterThan(0); // 3
    expect((await call(app, 'GET', '/api/v1/companies', { key: limited.key })).status).toBe(200); // 4
    expect((await client.callTool({ name: 'companies.list', arguments: {} })).isError).toBeFalsy(); // 5
    const sixth = await client.callTool({ name: 'companies.list', arguments: {} });
    expect(firstJson(sixth).error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // A list has no tool result to carry the error: a JSON-RPC error with the catalogue body as data.
    await expect(client.listTools()).rejects.toMatchObject({ data: { code: 'RATE_LIMITED', status: 429, recovery_hint: expect.any(String) } });
    await expect(connect(limited.key)).rejects.toThrow(/RATE_LIMITED|Too many requests/);
    expect((await call(app, 'GET', '/api/v1/companies', { key: limited.key })).status).toBe(429);
  });

  it.skipIf(!HAS_WEBHOOKS)("creates webhooks and lists deliveries with REST's data, and names missing scopes", async () => {
    const body = { event_type: 'journal_entry.committed', webhook_url: HOOK_URL, name: 'parity', description: 'MCP parity' };
    const created = await mcp.callTool({ name: 'webhooks.create', arguments: { company_id: tenant.companyId, ...body, idempotency_key: randomUUID() } });
    expect(created.isError, allText(created)).toBeFalsy();
    const webhook = dataOf(created);
    expect(webhook).toMatchObject({ ...body, company_id: tenant.companyId, secret: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const restCreated = await call(app, 'POST', `/api/v1/companies/${tenant.companyId}/webhooks`, {
      key: tenant.key,
      body,
      headers: { 'idempotency-key': randomUUID() },
    });
    const { id: _a, secret: _b, ...mcpShape } = webhook;
    const { id: _c, secret: _d, ...restShape } = restCreated.body.data;
    expect(mcpShape).toEqual(restShape);

    const restGet = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/webhooks/${webhook.id}`, { key: tenant.key });
    const toolGet = await mcp.callTool({ name: 'webhooks.get', arguments: { company_id: tenant.companyId, webhook_id: webhook.id } });
    expect(toolGet.structuredContent).toEqual(restGet.body.data);

    if (registry.byId('testWebhook')) {
      const test = await mcp.callTool({ name: 'webhooks.test', arguments: { company_id: tenant.companyId, webhook_id: webhook.id } });
      expect(test.isError, allText(test)).toBeFalsy();
    }
    const deliveriesPath = `/api/v1/companies/${tenant.companyId}/webhooks/${webhook.id}/deliveries`;
    const restDeliveries = await call(app, 'GET', deliveriesPath, { key: tenant.key });
    const toolDeliveries = await mcp.callTool({ name: 'webhooks.list_deliveries', arguments: { company_id: tenant.companyId, webhook_id: webhook.id } });
    expect(toolDeliveries.isError, allText(toolDeliveries)).toBeFalsy();
    expect(toolDeliveries.structuredContent).toEqual({ ...restDeliveries.body.data, next_cursor: null });
    expect(metaOf(toolDeliveries).pagination).toEqual(restDeliveries.body.meta.pagination);

    const db = t.services.database.prisma;
    const noWebhooks = await connect((await makeKey(db, tenant.userId, { scopes: ['companies:read', 'companies:write'] })).key);
    const denied = await noWebhooks.callTool({ name: 'webhooks.create', arguments: { company_id: tenant.companyId, ...body, idempotency_key: randomUUID() } });
    expect(firstJson(denied).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'webhooks:manage' });
    const noPayroll = await connect((await makeKey(db, tenant.userId, { scopes: ['webhooks:manage'] })).key);
    const payroll = await noPayroll.callTool({
      name: 'webhooks.create',
      arguments: { company_id: tenant.companyId, ...body, event_type: 'salary_run.booked', idempotency_key: randomUUID() },
    });
    expect(firstJson(payroll).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'payroll:read' });
    const missingKey = await mcp.callTool({ name: 'webhooks.create', arguments: { company_id: tenant.companyId, ...body } });
    // Over MCP the key is an argument: the error says so, not "header".
    expect(firstJson(missingKey).error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED', message: expect.stringMatching(/idempotency_key argument/) });
    expect(JSON.stringify(firstJson(missingKey))).not.toMatch(/header/i);
  });
});
