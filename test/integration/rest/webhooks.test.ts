import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { EVENT_TYPES } from '../../../domain/events/types.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';

const BASE = '/api/v1';
const validBody = (overrides: Record<string, unknown> = {}) => ({
  event_type: 'journal_entry.committed',
  webhook_url: 'https://hooks.example.com/ledger',
  name: 'Ledger sync',
  description: 'BI mirror',
  ...overrides,
});

describe.each(DB_TARGETS)('webhook endpoints (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let other: Tenant;

  const as = (key: string) => ({
    get: (path: string) => call(app, 'GET', BASE + path, { key }),
    post: (path: string, body?: unknown, idempotencyKey: string | null = randomUUID()) =>
      call(app, 'POST', BASE + path, { key, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} }),
    patch: (path: string, body: unknown) => call(app, 'PATCH', BASE + path, { key, body }),
    delete: (path: string) => call(app, 'DELETE', BASE + path, { key }),
  });

  async function createHook(who: Tenant, overrides: Record<string, unknown> = {}) {
    const response = await as(who.key).post(`/companies/${who.companyId}/webhooks`, validBody(overrides));
    expect(response.status, response.text).toBe(201);
    return response.body.data;
  }

  /** Marks a delivery terminal the way the dispatcher would. */
  async function finish(deliveryId: string, status: 'delivered' | 'dead') {
    await t.services.database.prisma.webhookDelivery.update({
      where: { id: deliveryId },
      data: { status, attempts: 1, responseStatus: status === 'delivered' ? 200 : 410, ...(status === 'dead' && { deadReason: 'http_410' }) },
    });
  }

  beforeAll(async () => {
    t = await createTestServices(target);
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    other = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  describe('create (rules 1-2)', () => {
    it('creates with 201, a 64-hex secret shown once, attribution, pinned version and meta.audit', async () => {
      const response = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, validBody());
      expect(response.status).toBe(201);
      const hook = response.body.data;
      expect(hook.secret).toMatch(/^[0-9a-f]{64}$/);
      expect(hook).toMatchObject({
        company_id: tenant.companyId,
        event_type: 'journal_entry.committed',
        active: true,
        created_by_api_key_id: tenant.apiKeyId,
        api_version_pinned: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        disabled_at: null,
        disabled_reason: null,
      });
      expect(response.body.meta.audit).toMatchObject({ action: 'createWebhook', target: { type: 'webhook', id: hook.id } });
      const stored = await t.services.database.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
      expect(stored.secretEncrypted).not.toContain(hook.secret);
      expect(t.services.secretBox.decrypt(stored.secretEncrypted)).toBe(hook.secret);

      const fetched = await as(tenant.key).get(`/companies/${tenant.companyId}/webhooks/${hook.id}`);
      expect(fetched.body.data).not.toHaveProperty('secret');
      const listed = await as(tenant.key).get(`/companies/${tenant.companyId}/webhooks`);
      expect(listed.body.data.webhooks.find((w: { id: string }) => w.id === hook.id)).not.toHaveProperty('secret');
      expect(listed.body.meta).not.toHaveProperty('pagination');
    });

    it('requires an Idempotency-Key and replays the same webhook (with its secret) for a repeated key', async () => {
      const missing = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, validBody(), null);
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
      const key = randomUUID();
      const first = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, validBody({ name: 'once' }), key);
      const second = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, validBody({ name: 'once' }), key);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(second.body.data).toEqual(first.body.data);
      expect(await t.services.database.prisma.webhook.count({ where: { companyId: tenant.companyId, name: 'once' } })).toBe(1);
    });

    it('supports ?dry_run=true: validates, creates nothing, shows no real secret', async () => {
      const before = await t.services.database.prisma.webhook.count();
      const dry = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks?dry_run=true`, validBody());
      // 200, not 201: nothing was created (DESIGN.md §6).
      expect(dry.status).toBe(200);
      expect(dry.body.meta).not.toHaveProperty('audit');
      expect(dry.body.meta.dry_run).toBe(true);
      expect(dry.body.data.secret).toBe('0'.repeat(64));
      expect(await t.services.database.prisma.webhook.count()).toBe(before);
      const unsafe = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks?dry_run=true`, validBody({ webhook_url: 'https://10.0.0.1/x' }));
      expect(unsafe.status).toBe(400);
    });

    it('needs payroll:read for salary_run.* and agi.* (403 with required_scope)', async () => {
      const noPayroll = await makeKey(t.services.database.prisma, tenant.userId, { scopes: SCOPES.filter((s) => s !== 'payroll:read') });
      for (const event_type of ['salary_run.booked', 'salary_run.created', 'agi.generated', 'agi.submitted']) {
        const denied = await as(noPayroll.key).post(`/companies/${tenant.companyId}/webhooks`, validBody({ event_type }));
        expect(denied.status, event_type).toBe(403);
        expect(denied.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'payroll:read' });
      }
      const allowed = await as(noPayroll.key).post(`/companies/${tenant.companyId}/webhooks`, validBody({ event_type: 'vat_return.generated' }));
      expect(allowed.status).toBe(201);
      await createHook(tenant, { event_type: 'salary_run.booked' });
    });

    it('refuses a key without webhooks:manage with 403 on every webhook route', async () => {
      const narrow = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['companies:read', 'payroll:read'] });
      const hook = await createHook(tenant);
      const routes: [string, string][] = [
        ['GET', `/companies/${tenant.companyId}/webhooks`],
        ['POST', `/companies/${tenant.companyId}/webhooks`],
        ['GET', `/companies/${tenant.companyId}/webhooks/${hook.id}`],
        ['PATCH', `/companies/${tenant.companyId}/webhooks/${hook.id}`],
        ['DELETE', `/companies/${tenant.companyId}/webhooks/${hook.id}`],
        ['POST', `/companies/${tenant.companyId}/webhooks/${hook.id}/test`],
        ['GET', `/companies/${tenant.companyId}/webhooks/${hook.id}/deliveries`],
        ['POST', `/webhook-deliveries/${randomUUID()}/retry`],
      ];
      for (const [method, path] of routes) {
        const response = await call(app, method, BASE + path, {
          key: narrow.key,
          body: method === 'PATCH' || method === 'POST' ? validBody() : undefined,
          headers: { 'idempotency-key': randomUUID() },
        });
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(response.body.error.required_scope).toBe('webhooks:manage');
      }
    });

    it.each([
      ['http scheme', { webhook_url: 'http://hooks.example.com/x' }, 'url_unsafe:scheme'],
      ['private IP literal', { webhook_url: 'https://10.1.2.3/x' }, 'url_unsafe:private'],
      ['loopback', { webhook_url: 'https://127.0.0.1/x' }, 'url_unsafe:loopback'],
      ['name resolving to private', { webhook_url: 'https://internal.example.com/x' }, 'url_unsafe:private'],
      ['metadata service', { webhook_url: 'https://metadata.example.com/latest' }, 'url_unsafe:link_local'],
      ['one private answer among public ones', { webhook_url: 'https://mixed.example.com/x' }, 'url_unsafe:private'],
      ['unresolvable', { webhook_url: 'https://no-such-host.invalid/x' }, 'url_unsafe:unresolvable'],
      ['not a URL', { webhook_url: 'hooks' }, 'url_unsafe:invalid_url'],
    ])('rejects %s as VALIDATION_ERROR', async (_label, overrides, detail) => {
      const response = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, validBody(overrides));
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details).toEqual([{ path: 'body.webhook_url', message: detail }]);
    });

    it('names every event type in valid_alternatives for an unknown one', async () => {
      const response = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, validBody({ event_type: 'journal_entry.exploded' }));
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].path).toBe('body.event_type');
      expect(response.body.error.valid_alternatives).toEqual([...EVENT_TYPES]);
    });

    it('rejects malformed bodies with details', async () => {
      for (const body of [{}, validBody({ name: '' }), validBody({ extra: 1 }), validBody({ webhook_url: 5 }), 'nope']) {
        const response = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks`, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
      }
    });
  });

  describe('get, update, delete (rules 2-3)', () => {
    it('updates url, name, description and active; active=false records manually_disabled', async () => {
      const hook = await createHook(tenant);
      const path = `/companies/${tenant.companyId}/webhooks/${hook.id}`;
      const renamed = await as(tenant.key).patch(path, { name: 'Renamed', description: 'new', webhook_url: 'https://other.example.com/h' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data).toMatchObject({ name: 'Renamed', description: 'new', webhook_url: 'https://other.example.com/h' });
      expect(renamed.body.data).not.toHaveProperty('secret');
      expect(renamed.body.meta.audit.action).toBe('updateWebhook');

      const disabled = await as(tenant.key).patch(path, { active: false });
      expect(disabled.body.data).toMatchObject({ active: false, disabled_reason: 'manually_disabled' });
      expect(disabled.body.data.disabled_at).not.toBeNull();
      const enabled = await as(tenant.key).patch(path, { active: true });
      expect(enabled.body.data).toMatchObject({ active: true, disabled_reason: null, disabled_at: null });
    });

    it('emits webhook.disabled when a webhook is disabled', async () => {
      const watcher = await createHook(tenant, { event_type: 'webhook.disabled' });
      const hook = await createHook(tenant);
      await as(tenant.key).patch(`/companies/${tenant.companyId}/webhooks/${hook.id}`, { active: false });
      const deliveries = await t.services.database.prisma.webhookDelivery.findMany({ where: { webhookId: watcher.id } });
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]!.payload).toMatchObject({ type: 'webhook.disabled', data: { object: { id: hook.id, disabled_reason: 'manually_disabled' } } });
    });

    it('refuses an unsafe URL on update and re-checks the URL on active=true', async () => {
      const hook = await createHook(tenant);
      const path = `/companies/${tenant.companyId}/webhooks/${hook.id}`;
      const unsafe = await as(tenant.key).patch(path, { webhook_url: 'https://192.168.0.1/x' });
      expect(unsafe.status).toBe(400);
      expect(unsafe.body.error.details[0].message).toBe('url_unsafe:private');
      await as(tenant.key).patch(path, { active: false });
      // The stored URL became unsafe while disabled (e.g. its DNS changed): enabling must re-check.
      await t.services.database.prisma.webhook.update({ where: { id: hook.id }, data: { webhookUrl: 'https://internal.example.com/x' } });
      const enable = await as(tenant.key).patch(path, { active: true });
      expect(enable.status).toBe(400);
      expect(enable.body.error.details[0].message).toBe('url_unsafe:private');
      const stillDisabled = await as(tenant.key).get(path);
      expect(stillDisabled.body.data.active).toBe(false);
    });

    it('refuses changing event_type and an empty body', async () => {
      const hook = await createHook(tenant);
      const path = `/companies/${tenant.companyId}/webhooks/${hook.id}`;
      const typeChange = await as(tenant.key).patch(path, { event_type: 'period.locked' });
      expect(typeChange.status).toBe(400);
      expect(typeChange.body.error.message).toMatch(/event_type cannot be changed/);
      const empty = await as(tenant.key).patch(path, {});
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('deletes with a bare 204; deliveries stay with webhook_id null', async () => {
      const hook = await createHook(tenant);
      const test = await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks/${hook.id}/test`);
      await finish(test.body.data.id, 'delivered');
      const removed = await call(app, 'DELETE', `${BASE}/companies/${tenant.companyId}/webhooks/${hook.id}`, { key: tenant.key });
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');
      expect(removed.headers.get('x-request-id')).toMatch(/^req_/);
      const delivery = await t.services.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: test.body.data.id } });
      expect(delivery.webhookId).toBeNull();
      expect(delivery.status).toBe('delivered');
      expect((await as(tenant.key).get(`/companies/${tenant.companyId}/webhooks/${hook.id}`)).status).toBe(404);
      expect((await as(tenant.key).delete(`/companies/${tenant.companyId}/webhooks/${hook.id}`)).status).toBe(404);
      expect(await t.services.database.prisma.auditLog.count({ where: { action: 'deleteWebhook', targetId: hook.id } })).toBe(1);
    });

    it('answers 404 for unknown and malformed webhook ids', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const path = `/companies/${tenant.companyId}/webhooks/${id}`;
        expect((await as(tenant.key).get(path)).status).toBe(id === 'not-a-uuid' ? 400 : 404);
        expect((await as(tenant.key).patch(path, { name: 'x' })).status).toBe(id === 'not-a-uuid' ? 400 : 404);
        expect((await as(tenant.key).delete(path)).status).toBe(id === 'not-a-uuid' ? 400 : 404);
      }
    });
  });

  describe('test endpoint (rule 4) and deliveries list (rule 5)', () => {
    it('enqueues a pending test delivery (202) with an example payload, refused when disabled', async () => {
      const hook = await createHook(tenant);
      const path = `/companies/${tenant.companyId}/webhooks/${hook.id}`;
      const queued = await as(tenant.key).post(`${path}/test`);
      expect(queued.status).toBe(202);
      expect(queued.body.data).toMatchObject({ webhook_id: hook.id, status: 'pending', test: true, attempts: 0, event_type: hook.event_type });
      const row = await t.services.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: queued.body.data.id } });
      expect(row.payload).toMatchObject({ type: hook.event_type, test: true, company_id: tenant.companyId, data: { previous_attributes: null } });

      await as(tenant.key).patch(path, { active: false });
      const refused = await as(tenant.key).post(`${path}/test`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
      expect((await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks/${randomUUID()}/test`)).status).toBe(404);
    });

    it("lists a webhook's deliveries newest first with a working cursor", async () => {
      const hook = await createHook(tenant);
      const path = `/companies/${tenant.companyId}/webhooks/${hook.id}`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await as(tenant.key).post(`${path}/test`)).body.data.id);
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 5; page++) {
        const response = await as(tenant.key).get(`${path}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(response.status).toBe(200);
        seen.push(...response.body.data.deliveries.map((d: { id: string }) => d.id));
        if (!response.body.meta.pagination.has_more) break;
        cursor = encodeURIComponent(response.body.meta.pagination.next_cursor);
      }
      expect(new Set(seen).size).toBe(5);
      expect(seen.sort()).toEqual([...ids].sort());
      const first = await as(tenant.key).get(`${path}/deliveries?limit=1`);
      expect(first.body.data.deliveries[0].id).toBe(ids[4]);
    });
  });

  describe('retry (rule 6)', () => {
    it('enqueues a fresh pending row from a terminal one and leaves the source unchanged', async () => {
      const hook = await createHook(tenant);
      const source = (await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks/${hook.id}/test`)).body.data;
      const live = await as(tenant.key).post(`/webhook-deliveries/${source.id}/retry`);
      expect(live.status).toBe(409);
      expect(live.body.error.code).toBe('CONFLICT');
      await finish(source.id, 'dead');
      const before = await t.services.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: source.id } });
      const retried = await as(tenant.key).post(`/webhook-deliveries/${source.id}/retry`);
      expect(retried.status).toBe(202);
      expect(retried.body.data).toMatchObject({ status: 'pending', retry_of: source.id, webhook_id: hook.id, attempts: 0 });
      expect(retried.body.data.id).not.toBe(source.id);
      expect(retried.body.meta.audit.action).toBe('retryWebhookDelivery');
      const after = await t.services.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: source.id } });
      expect(after).toEqual(before);
      const copy = await t.services.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: retried.body.data.id } });
      expect(copy.payload).toEqual(before.payload);
    });

    it('answers 404 for an unknown delivery and for one in a company the caller cannot access, identically', async () => {
      const foreignHook = await createHook(other);
      const foreign = (await as(other.key).post(`/companies/${other.companyId}/webhooks/${foreignHook.id}/test`)).body.data;
      await finish(foreign.id, 'delivered');
      const strip = (body: any) => JSON.stringify({ ...body.error, request_id: null });
      const a = await as(tenant.key).post(`/webhook-deliveries/${foreign.id}/retry`);
      const b = await as(tenant.key).post(`/webhook-deliveries/${randomUUID()}/retry`);
      expect(a.status).toBe(404);
      expect(b.status).toBe(404);
      expect(strip(a.body)).toBe(strip(b.body));
    });

    it('gone webhook → 404, disabled → VALIDATION_ERROR, unsafe URL → refused', async () => {
      const db = t.services.database.prisma;
      const mk = async () => {
        const hook = await createHook(tenant);
        const d = (await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks/${hook.id}/test`)).body.data;
        await finish(d.id, 'delivered');
        return { hook, delivery: d };
      };
      const gone = await mk();
      await as(tenant.key).delete(`/companies/${tenant.companyId}/webhooks/${gone.hook.id}`);
      const goneRetry = await as(tenant.key).post(`/webhook-deliveries/${gone.delivery.id}/retry`);
      expect(goneRetry.status).toBe(404);
      expect(goneRetry.body.error.code).toBe('NOT_FOUND');

      const disabled = await mk();
      await as(tenant.key).patch(`/companies/${tenant.companyId}/webhooks/${disabled.hook.id}`, { active: false });
      const disabledRetry = await as(tenant.key).post(`/webhook-deliveries/${disabled.delivery.id}/retry`);
      expect(disabledRetry.status).toBe(400);
      expect(disabledRetry.body.error.code).toBe('VALIDATION_ERROR');

      const unsafe = await mk();
      await db.webhook.update({ where: { id: unsafe.hook.id }, data: { webhookUrl: 'https://internal.example.com/x' } });
      const unsafeRetry = await as(tenant.key).post(`/webhook-deliveries/${unsafe.delivery.id}/retry`);
      expect(unsafeRetry.status).toBe(400);
      expect(unsafeRetry.body.error.details[0].message).toBe('url_unsafe:private');
    });

    it('needs payroll:read to retry salary_run.* and agi.* deliveries', async () => {
      const hook = await createHook(tenant, { event_type: 'agi.submitted' });
      const d = (await as(tenant.key).post(`/companies/${tenant.companyId}/webhooks/${hook.id}/test`)).body.data;
      await finish(d.id, 'dead');
      const noPayroll = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['webhooks:manage'] });
      const denied = await as(noPayroll.key).post(`/webhook-deliveries/${d.id}/retry`);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'payroll:read' });
      expect((await as(tenant.key).post(`/webhook-deliveries/${d.id}/retry`)).status).toBe(202);
    });
  });

  describe('tenancy', () => {
    it("makes another company's webhook and deliveries invisible (404) on every route", async () => {
      const hook = await createHook(other);
      const delivery = (await as(other.key).post(`/companies/${other.companyId}/webhooks/${hook.id}/test`)).body.data;
      await finish(delivery.id, 'delivered');
      // Through the caller's own company path with the foreign webhook id …
      const own = `/companies/${tenant.companyId}/webhooks/${hook.id}`;
      // … and through the foreign company's path (not a member).
      const theirs = `/companies/${other.companyId}/webhooks/${hook.id}`;
      for (const base of [own, theirs]) {
        expect((await as(tenant.key).get(base)).status).toBe(404);
        expect((await as(tenant.key).patch(base, { name: 'x' })).status).toBe(404);
        expect((await as(tenant.key).delete(base)).status).toBe(404);
        expect((await as(tenant.key).post(`${base}/test`)).status).toBe(404);
        expect((await as(tenant.key).get(`${base}/deliveries`)).status).toBe(404);
      }
      expect((await as(tenant.key).get(`/companies/${other.companyId}/webhooks`)).status).toBe(404);
      expect((await as(tenant.key).post(`/companies/${other.companyId}/webhooks`, validBody())).status).toBe(404);
      expect((await as(tenant.key).post(`/webhook-deliveries/${delivery.id}/retry`)).status).toBe(404);
      const listed = await as(tenant.key).get(`/companies/${tenant.companyId}/webhooks`);
      expect(listed.body.data.webhooks.map((w: { id: string }) => w.id)).not.toContain(hook.id);
      const untouched = await as(other.key).get(theirs);
      expect(untouched.body.data.name).toBe('Ledger sync');
    });
  });

  describe('fan-out from a real write', () => {
    it('company update emits company.updated to matching webhooks with previous_attributes', async () => {
      const fresh = await makeTenant(t.services.database.prisma);
      const hook = await createHook(fresh, { event_type: 'company.updated' });
      await createHook(fresh, { event_type: 'period.locked' });
      const disabled = await createHook(fresh, { event_type: 'company.updated' });
      await as(fresh.key).patch(`/companies/${fresh.companyId}/webhooks/${disabled.id}`, { active: false });
      await as(fresh.key).patch(`/companies/${fresh.companyId}`, { name: 'Renamed AB' });
      const deliveries = await t.services.database.prisma.webhookDelivery.findMany({ where: { companyId: fresh.companyId, eventType: 'company.updated' } });
      expect(deliveries.map((d) => d.webhookId)).toEqual([hook.id]);
      expect(deliveries[0]!.payload).toMatchObject({
        type: 'company.updated',
        company_id: fresh.companyId,
        livemode: false,
        data: { object: { id: fresh.companyId, name: 'Renamed AB' }, previous_attributes: { name: expect.any(String) } },
      });
    });
  });

  it('never shows a secret outside create responses, nor in any log line', async () => {
    // Self-contained: its own tenant and traffic over every webhook route, nothing from earlier tests.
    const own = await makeTenant(t.services.database.prisma);
    const seen: { label: string; status: number; body: any; text: string }[] = [];
    const send = async (label: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await call(app, method, BASE + path, { key: own.key, ...(body !== undefined && { body }), headers });
      seen.push({ label, ...response });
      return response;
    };
    const hooks = `/companies/${own.companyId}/webhooks`;
    const key = randomUUID();
    const created = await send('create', 'POST', hooks, validBody({ event_type: 'company.updated' }), { 'idempotency-key': key });
    const replayed = await send('create (replay)', 'POST', hooks, validBody({ event_type: 'company.updated' }), { 'idempotency-key': key });
    const dry = await send('create (dry run)', 'POST', `${hooks}?dry_run=true`, validBody());
    const real: string = created.body.data.secret;
    expect(real).toMatch(/^[0-9a-f]{64}$/);
    expect(replayed.body.data.secret).toBe(real);
    expect(dry.body.data.secret).not.toBe(real);

    const id: string = created.body.data.id;
    await send('list', 'GET', hooks);
    await send('get', 'GET', `${hooks}/${id}`);
    await send('rename', 'PATCH', `${hooks}/${id}`, { name: 'renamed' });
    await send('disable', 'PATCH', `${hooks}/${id}`, { active: false });
    await send('enable', 'PATCH', `${hooks}/${id}`, { active: true });
    const test = await send('test', 'POST', `${hooks}/${id}/test`);
    await send('company update (fan-out)', 'PATCH', `/companies/${own.companyId}`, { name: 'Fan-out AB' });
    await send('deliveries', 'GET', `${hooks}/${id}/deliveries?expand=attempts`);
    await finish(test.body.data.id, 'delivered');
    await send('retry', 'POST', `/webhook-deliveries/${test.body.data.id}/retry`);
    await send('delete', 'DELETE', `${hooks}/${id}`);
    expect(
      seen.every((r) => r.status < 300),
      seen.map((r) => `${r.label}: ${r.status}`).join(', '),
    ).toBe(true);

    const creates = new Set(['create', 'create (replay)', 'create (dry run)']);
    for (const response of seen) {
      if (creates.has(response.label)) {
        expect(Object.keys(response.body.data), response.label).toContain('secret');
      } else {
        expect(response.text, response.label).not.toContain(real);
        expect(response.text, response.label).not.toContain('"secret"');
      }
    }
    // The only answers carrying a secret: the real create and its replay (201, audited), and the dry run's placeholder.
    expect([created.status, replayed.status, dry.status]).toEqual([201, 201, 200]);
    expect(created.body.meta.audit.action).toBe('createWebhook');
    expect(dry.body.meta.dry_run).toBe(true);
    // Nor in any log line, nor in the stored payloads the receiver will get.
    expect(t.logs.raw.join('\n')).not.toContain(real);
    const payloads = await t.services.database.prisma.webhookDelivery.findMany({ where: { companyId: own.companyId } });
    expect(payloads.length).toBeGreaterThan(1);
    expect(JSON.stringify(payloads)).not.toContain(real);
  });
});
