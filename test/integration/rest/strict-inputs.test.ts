import { PDF, blobOf, send as sendForm } from '../../helpers/documents.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { connectInProcess, firstJson, metaOf } from '../../helpers/mcp-client.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { registry } from '../../../registry/index.ts';
import { fullPath } from '../../../discovery/operation-traits.ts';
import { isPublic } from '../../../registry/define-operation.ts';

/**
 * One strict parse for every surface (issue 9): the pipeline refuses what it cannot honour —
 * a malformed dry_run flag, names no schema declares, text the database cannot store — by name,
 * the same over REST and MCP, and for every operation without the operation saying so.
 */

const BASE = '/api/v1';
const webhookBody = (overrides: Record<string, unknown> = {}) => ({
  event_type: 'journal_entry.committed',
  webhook_url: 'https://hooks.example.com/strict',
  name: 'Strict',
  description: 'strict inputs',
  ...overrides,
});

describe.each(DB_TARGETS)('strict inputs (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let mcp: Client;

  beforeAll(async () => {
    t = await createTestServices(target);
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    mcp = await connectInProcess(app, { key: tenant.key });
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.close();
  });

  const db = () => t.services.database.prisma;
  const companyName = async () => (await db().company.findUniqueOrThrow({ where: { id: tenant.companyId } })).name;
  const patchCompany = (query: string, body: unknown) => call(app, 'PATCH', `${BASE}/companies/${tenant.companyId}${query}`, { key: tenant.key, body });
  const createWebhook = (query: string, body: unknown) =>
    call(app, 'POST', `${BASE}/companies/${tenant.companyId}/webhooks${query}`, {
      key: tenant.key,
      body,
      headers: { 'idempotency-key': randomUUID() },
    });

  describe('dry_run is a strict boolean, parsed once for REST and MCP', () => {
    it.each(['1', 'TRUE', 'yes', 'True', '', 'on'])('refuses ?dry_run=%j with a 400 naming it, and writes nothing', async (value) => {
      const before = { name: await companyName(), webhooks: await db().webhook.count(), audits: await db().auditLog.count() };
      const patched = await patchCompany(`?dry_run=${value}`, { name: `Not written ${value}` });
      const created = await createWebhook(`?dry_run=${value}`, webhookBody());
      for (const response of [patched, created]) {
        expect(response.status, response.text).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.details).toContainEqual({ path: 'query.dry_run', message: 'Use true or false.' });
        expect(response.body.error.valid_alternatives).toEqual(['true', 'false']);
      }
      expect(await companyName()).toBe(before.name);
      expect(await db().webhook.count()).toBe(before.webhooks);
      expect(await db().auditLog.count()).toBe(before.audits);
    });

    it('refuses the same malformed flags as MCP arguments', async () => {
      const before = await companyName();
      for (const dry_run of [1, 'yes', 'TRUE', 'true ', null]) {
        const result = await mcp.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'Not written', dry_run } });
        expect(result.isError, JSON.stringify(dry_run)).toBe(true);
        expect(firstJson(result).error).toMatchObject({ code: 'VALIDATION_ERROR', valid_alternatives: ['true', 'false'] });
      }
      expect(await companyName()).toBe(before);
    });

    it('dry_run=false is a real write; dry_run=true answers 200 with meta.dry_run and no audit id', async () => {
      const real = await patchCompany('?dry_run=false', { name: 'Really Written AB' });
      expect(real.status).toBe(200);
      expect(real.body.meta.audit.action).toBe('updateCompany');
      expect(await companyName()).toBe('Really Written AB');

      const audits = await db().auditLog.count();
      const webhooks = await db().webhook.count();
      // A create answers 201 for real; its dry run created nothing, so 200 (DESIGN.md §6).
      const dry = await createWebhook('?dry_run=true', webhookBody());
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body.meta.dry_run).toBe(true);
      expect(dry.body.meta).not.toHaveProperty('audit');
      const dryTool = await mcp.callTool({ name: 'webhooks.create', arguments: { company_id: tenant.companyId, ...webhookBody(), dry_run: true } });
      expect(dryTool.isError).toBeFalsy();
      expect(metaOf(dryTool).dry_run).toBe(true);
      expect(metaOf(dryTool)).not.toHaveProperty('audit');
      expect(await db().auditLog.count()).toBe(audits);
      expect(await db().webhook.count()).toBe(webhooks);
    });

    it('refuses dry_run on an operation without dry runs', async () => {
      const response = await call(app, 'GET', `${BASE}/companies?dry_run=true`, { key: tenant.key });
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].path).toBe('query.dry_run');
    });
  });

  describe('unknown names are a 400 naming each, with the accepted names', () => {
    it('refuses an unknown query parameter (never ignored)', async () => {
      const response = await call(app, 'GET', `${BASE}/companies?limt=5`, { key: tenant.key });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details).toEqual([{ path: 'query.limt', message: expect.stringContaining('Unknown parameter "limt"') }]);
      expect(response.body.error.valid_alternatives).toEqual(['cursor', 'limit']);
    });

    it('names dry_run among the accepted parameters where the operation supports it', async () => {
      const response = await patchCompany('?dryrun=true', { name: 'Not written' });
      expect(response.status).toBe(400);
      expect(response.body.error.valid_alternatives).toEqual(['dry_run']);
    });

    it('refuses a repeated query parameter instead of picking one value', async () => {
      const response = await call(app, 'GET', `${BASE}/companies?limit=1&limit=2`, { key: tenant.key });
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].path).toBe('query.limit');
    });

    it('refuses unknown body fields, each named, and writes nothing', async () => {
      const before = await companyName();
      const response = await patchCompany('', { name: 'Typo AB', nmae: 'x', entity: 'y' });
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toEqual(['body.nmae', 'body.entity']);
      expect(response.body.error.valid_alternatives).toEqual(['name', 'entity_type']);
      expect(await companyName()).toBe(before);

      const webhooks = await db().webhook.count();
      const misspelt = await createWebhook('', webhookBody({ descripton: 'typo' }));
      expect(misspelt.status).toBe(400);
      expect(misspelt.body.error.details).toContainEqual({ path: 'body.descripton', message: expect.stringContaining('Unknown field') });
      expect(await db().webhook.count()).toBe(webhooks);
    });

    it('refuses an unknown MCP argument of a tool without a body', async () => {
      const result = await mcp.callTool({ name: 'companies.list', arguments: { limt: 5 } });
      expect(result.isError).toBe(true);
      expect(firstJson(result).error).toMatchObject({ code: 'VALIDATION_ERROR', valid_alternatives: ['cursor', 'limit'] });
    });

    // Generated from the registry: an operation added later gets the same answer without an edit.
    it.each(registry.operations.map((op) => [op.id, op] as const))('%s refuses an unknown query parameter and body field', async (_id, op) => {
      const params: Record<string, string> = { ...(op.examples.params as Record<string, string> | undefined) };
      if ('companyId' in params) params.companyId = tenant.companyId;
      const path = fullPath(op).replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
      const options = {
        ...(isPublic(op) ? {} : { key: tenant.key }),
        headers: (op.idempotencyKey === 'none' ? {} : { 'idempotency-key': randomUUID() }) as Record<string, string>,
      };
      // An operation that takes a file gets multipart: the file part and the fields beside it.
      const request = (url: string, body: unknown) => {
        if (!op.input.file) return call(app, op.method, url, { ...options, ...(body !== undefined && { body }) });
        const form = new FormData();
        form.append(op.input.file.field, blobOf(PDF, 'application/pdf'), 'kvitto.pdf');
        for (const [field, value] of Object.entries((body ?? {}) as Record<string, unknown>)) form.append(field, String(value));
        return sendForm(app, tenant.key, url, form, options.headers);
      };
      const withQuery = await request(`${path}?zz_unknown=1`, op.examples.body);
      expect(withQuery.status, withQuery.text).toBe(400);
      expect(withQuery.body.error.details.map((d: { path: string }) => d.path)).toContain('query.zz_unknown');
      if (op.input.body) {
        const withField = await request(path, { ...(op.examples.body as object), zz_unknown: 1 });
        expect(withField.status, withField.text).toBe(400);
        expect(withField.body.error.details.map((d: { path: string }) => d.path)).toContain('body.zz_unknown');
      }
    });
  });

  describe('text the database cannot store', () => {
    it('refuses a NUL in any string with a 400 naming the field, never a 500', async () => {
      const before = await companyName();
      const company = await patchCompany('', { name: 'Nul\u0000AB' });
      expect(company.status, company.text).toBe(400);
      expect(company.body.error.details).toEqual([{ path: 'body.name', message: expect.stringContaining('NUL') }]);
      expect(await companyName()).toBe(before);

      const webhooks = await db().webhook.count();
      const hook = await createWebhook('', webhookBody({ name: 'a\u0000b', description: '\u0000', webhook_url: 'https://hooks.example.com/a\u0000b' }));
      expect(hook.status, hook.text).toBe(400);
      expect(hook.body.error.details.map((d: { path: string }) => d.path)).toEqual(
        expect.arrayContaining(['body.name', 'body.description', 'body.webhook_url']),
      );
      expect(await db().webhook.count()).toBe(webhooks);

      const tool = await mcp.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'x\u0000' } });
      // Over MCP the path names the tool's argument, not REST's body field.
      expect(firstJson(tool).error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'name' }] });
    });

    it('treats a cursor holding a NUL as stale (page one), not as an error', async () => {
      const response = await call(app, 'GET', `${BASE}/companies?cursor=%00abc`, { key: tenant.key });
      expect(response.status).toBe(200);
      expect(response.body.data.companies.map((c: { id: string }) => c.id)).toEqual([tenant.companyId]);
    });
  });
});
