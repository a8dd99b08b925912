import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeKey, makeTenant, makeUser, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { createMembership } from '../../../domain/users/admin.ts';
import { revokeApiKey } from '../../../domain/apikeys/keys.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';
import { EXPECTED_WRAPPED_HEADERS, expectHeaders } from '../../helpers/headers.ts';

function expectWrappedHeaders(headers: Headers): void {
  expectHeaders(headers, EXPECTED_WRAPPED_HEADERS);
  expect(headers.get('service-version')).toBe(API_VERSION);
}

describe.each(DB_TARGETS)('authentication, headers and errors (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  it('sends every security header on success and on error, and request ids match meta', async () => {
    const ok = await call(app, 'GET', '/api/v1/companies', { key: tenant.key });
    expect(ok.status).toBe(200);
    expectWrappedHeaders(ok.headers);
    expect(ok.body.meta.request_id).toBe(ok.headers.get('x-request-id'));
    expect(ok.body.meta.api_version).toBe(API_VERSION);

    for (const response of [
      await call(app, 'GET', '/api/v1/companies'),
      await call(app, 'GET', '/api/v1/nope', { key: tenant.key }),
      await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body: {} }),
    ]) {
      expectWrappedHeaders(response.headers);
      expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
    }
    const health = await call(app, 'GET', '/api/v1/health');
    expectWrappedHeaders(health.headers);
    expect(health.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('answers 401 with WWW-Authenticate for missing, malformed, unknown and revoked keys', async () => {
    const userId = await makeUser(t.services.database.prisma);
    const revoked = await makeKey(t.services.database.prisma, userId);
    await revokeApiKey(t.services.database.prisma, revoked.id, new Date());
    for (const authorization of [undefined, 'Basic abc', 'Bearer', 'Bearer sk_test_short', `Bearer sk_test_${'A'.repeat(32)}`, `Bearer ${revoked.key}`]) {
      const response = await call(app, 'GET', '/api/v1/companies', { headers: authorization ? { authorization } : {} });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(response.body.error).toMatchObject({
        code: 'UNAUTHENTICATED',
        status: 401,
        recovery_hint: expect.any(String),
        docs_url: expect.stringMatching(/^https:\/\//),
        valid_alternatives: [],
      });
    }
  });

  it('public routes ignore a bad token and never fail on it', async () => {
    for (const authorization of ['Bearer junk', 'Basic x', `Bearer sk_live_${'z'.repeat(32)}`, `Bearer ${tenant.key}`]) {
      const response = await call(app, 'GET', '/api/v1/health', { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(response.body.data.status).toBe('ok');
    }
  });

  it('answers 403 INSUFFICIENT_SCOPE with required_scope', async () => {
    const narrow = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['events:read'] });
    const list = await call(app, 'GET', '/api/v1/companies', { key: narrow.key });
    expect(list.status).toBe(403);
    expect(list.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'companies:read' });
    const readOnly = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['companies:read'] });
    const update = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: readOnly.key, body: { name: 'x' } });
    expect(update.status).toBe(403);
    expect(update.body.error.required_scope).toBe('companies:write');
  });

  it('denies a non-member exactly as an unknown company (404, same body but the request id)', async () => {
    const db = t.services.database.prisma;
    const foreignCompany = await makeCompany(db);
    const unknownCompany = '00000000-0000-4000-8000-000000000000';
    const strip = (body: any) => ({ ...body, error: { ...body.error, request_id: 'x' } });
    const foreign = await call(app, 'PATCH', `/api/v1/companies/${foreignCompany}`, { key: tenant.key, body: { name: 'x' } });
    const unknown = await call(app, 'PATCH', `/api/v1/companies/${unknownCompany}`, { key: tenant.key, body: { name: 'x' } });
    const malformed = await call(app, 'PATCH', '/api/v1/companies/not-a-uuid', { key: tenant.key, body: { name: 'x' } });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(404);
    expect(JSON.stringify(strip(foreign.body))).toBe(JSON.stringify(strip(unknown.body)));
    expect(JSON.stringify(strip(malformed.body))).toBe(JSON.stringify(strip(unknown.body)));
    expect(foreign.text.length).toBe(unknown.text.length);
  });

  it('keeps test keys to sandbox companies, live keys to live ones, and bound keys to their company', async () => {
    const db = t.services.database.prisma;
    const live = await makeCompany(db, { livemode: true });
    const other = await makeCompany(db);
    await createMembership(db, { userId: tenant.userId, companyId: live, role: 'owner' });
    await createMembership(db, { userId: tenant.userId, companyId: other, role: 'owner' });
    const liveKey = await makeKey(db, tenant.userId, { mode: 'live' });
    const bound = await makeKey(db, tenant.userId, { companyId: other });

    expect((await call(app, 'PATCH', `/api/v1/companies/${live}`, { key: tenant.key, body: { name: 'x' } })).status).toBe(404);
    expect((await call(app, 'PATCH', `/api/v1/companies/${live}`, { key: liveKey.key, body: { name: 'x' } })).status).toBe(200);
    expect((await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: liveKey.key, body: { name: 'x' } })).status).toBe(404);
    expect((await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: bound.key, body: { name: 'x' } })).status).toBe(404);
    expect((await call(app, 'PATCH', `/api/v1/companies/${other}`, { key: bound.key, body: { name: 'x' } })).status).toBe(200);

    const ids = (response: any) => response.body.data.companies.map((c: any) => c.id);
    expect(ids(await call(app, 'GET', '/api/v1/companies', { key: bound.key }))).toEqual([other]);
    expect(ids(await call(app, 'GET', '/api/v1/companies', { key: liveKey.key }))).toEqual([live]);
    expect(ids(await call(app, 'GET', '/api/v1/companies', { key: tenant.key }))).toEqual([tenant.companyId, other]);
  });

  it('excludes archived companies from the list and from access', async () => {
    const db = t.services.database.prisma;
    const user = await makeUser(db);
    const archived = await makeCompany(db, { archived: true });
    await createMembership(db, { userId: user, companyId: archived });
    const key = await makeKey(db, user);
    expect((await call(app, 'GET', '/api/v1/companies', { key: key.key })).body.data.companies).toEqual([]);
    expect((await call(app, 'PATCH', `/api/v1/companies/${archived}`, { key: key.key, body: { name: 'x' } })).status).toBe(404);
  });

  it('reports validation failures with details, never a 500', async () => {
    const path = `/api/v1/companies/${tenant.companyId}`;
    const cases: [unknown, Record<string, string>, number, string][] = [
      [{}, {}, 400, 'VALIDATION_ERROR'],
      [{ name: '' }, {}, 400, 'VALIDATION_ERROR'],
      [{ name: 'ok', unknown_field: 1 }, {}, 400, 'VALIDATION_ERROR'],
      [{ name: 42 }, {}, 400, 'VALIDATION_ERROR'],
      ['{not json', {}, 400, 'VALIDATION_ERROR'],
      ['[1,2]', {}, 400, 'VALIDATION_ERROR'],
      ['name=x', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1) }), {}, 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [body, headers, status, code] of cases) {
      const response = await call(app, 'PATCH', path, { key: tenant.key, body, headers });
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect(response.body.error.code).toBe(code);
    }
    const empty = await call(app, 'PATCH', path, { key: tenant.key });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details[0].path).toBe('body');
    const limit = await call(app, 'GET', '/api/v1/companies?limit=0', { key: tenant.key });
    expect(limit.status).toBe(400);
    expect(limit.body.error.details[0].path).toBe('query.limit');
    expect((await call(app, 'GET', '/api/v1/companies?limit=201', { key: tenant.key })).status).toBe(400);
  });

  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    const missing = await call(app, 'GET', '/api/v1/nothing-here', { key: tenant.key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('ROUTE_NOT_FOUND');
    const wrong = await call(app, 'DELETE', '/api/v1/health');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('supports dry runs that change nothing', async () => {
    const path = `/api/v1/companies/${tenant.companyId}`;
    const before = await call(app, 'GET', '/api/v1/companies', { key: tenant.key });
    const audits = await t.services.database.prisma.auditLog.count();
    const dry = await call(app, 'PATCH', `${path}?dry_run=true`, { key: tenant.key, body: { name: 'Dry Run AB' } });
    expect(dry.status).toBe(200);
    expect(dry.body.meta.dry_run).toBe(true);
    expect(dry.body.data.name).toBe('Dry Run AB');
    // Nothing was written, so no audit entry is pointed at.
    expect(dry.body.meta).not.toHaveProperty('audit');
    const after = await call(app, 'GET', '/api/v1/companies', { key: tenant.key });
    expect(after.body.data.companies[0].name).toBe(before.body.data.companies[0].name);
    expect(await t.services.database.prisma.auditLog.count()).toBe(audits);
    const unsupported = await call(app, 'GET', '/api/v1/companies?dry_run=true', { key: tenant.key });
    expect(unsupported.status).toBe(400);
  });

  it('returns meta.audit on writes and appends to the audit log', async () => {
    const response = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body: { name: 'Audited AB' } });
    expect(response.status).toBe(200);
    const audit = response.body.meta.audit;
    expect(audit).toMatchObject({
      action: 'updateCompany',
      actor: { type: 'api_key', api_key_id: tenant.apiKeyId },
      target: { type: 'company', id: tenant.companyId },
    });
    const row = await t.services.database.prisma.auditLog.findUnique({ where: { id: audit.id } });
    expect(row).toMatchObject({ action: 'updateCompany', companyId: tenant.companyId, requestId: response.body.meta.request_id });
  });

  it('logs denials with a truncated address and the user agent, never the key', async () => {
    t.logs.lines.length = 0;
    const agent = { 'user-agent': 'denial-test/1.0' };
    await call(app, 'GET', '/api/v1/companies', { headers: agent, remoteAddress: '198.51.100.23' });
    await call(app, 'GET', '/api/v1/companies', { key: `sk_test_${'Q'.repeat(32)}`, headers: agent, remoteAddress: '2001:db8:abcd:12::1' });
    const narrow = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['events:read'] });
    await call(app, 'GET', '/api/v1/companies', { key: narrow.key, headers: agent, remoteAddress: '::ffff:192.0.2.9' });
    await call(app, 'PATCH', '/api/v1/companies/00000000-0000-4000-8000-000000000000', {
      key: tenant.key,
      body: { name: 'x' },
      headers: agent,
      remoteAddress: '300.1.1.1',
    });
    await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body: {}, headers: agent, remoteAddress: '10.9.8.7' });
    const denials = t.logs.lines.filter((line) => line.event === 'request_denied');
    expect(denials.map((d) => [d.reason, d.client])).toEqual([
      ['missing_token', '198.51.100.0/24'],
      ['invalid_token', '2001:db8:abcd::/48'],
      ['insufficient_scope', '192.0.2.0/24'],
      ['membership', 'unparseable'],
      ['validation', '10.9.8.0/24'],
    ]);
    expect(denials.every((d) => d.user_agent === 'denial-test/1.0')).toBe(true);
    expect(t.logs.raw.join('\n')).not.toContain(tenant.key);
    expect(t.logs.raw.join('\n')).not.toContain('198.51.100.23');
  });
});
