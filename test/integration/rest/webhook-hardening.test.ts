import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, POSTGRES_AVAILABLE, createTestServices, testResolver, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { MAX_WEBHOOKS_PER_COMPANY } from '../../../domain/webhooks/schemas.ts';
import type { Resolver } from '../../../domain/webhooks/url-safety.ts';

const BASE = '/api/v1';
const body = (overrides: Record<string, unknown> = {}) => ({
  event_type: 'company.updated',
  webhook_url: 'https://hooks.example.com/h',
  name: 'hardening',
  ...overrides,
});

/** DNS the test controls: names under .held.example.com answer only when released. */
class HeldDns {
  private waiting: (() => void)[] = [];
  held = 0;
  readonly resolver: Resolver = (hostname) => {
    if (!hostname.endsWith('.held.example.com')) return testResolver(hostname);
    this.held++;
    return new Promise((resolve) => this.waiting.push(() => resolve(['93.184.216.34'])));
  };
  release(): void {
    for (const answer of this.waiting.splice(0)) answer();
  }
}

describe.each(DB_TARGETS)('webhook hardening (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  const dns = new HeldDns();

  beforeAll(async () => {
    t = await createTestServices(target, { resolver: dns.resolver });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  const db = () => t.services.database.prisma;
  const create = async (who: Tenant, overrides: Record<string, unknown> = {}) => {
    const response = await call(app, 'POST', `${BASE}/companies/${who.companyId}/webhooks`, {
      key: who.key,
      body: body(overrides),
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(response.status, response.text).toBe(201);
    return response.body.data as { id: string; secret: string };
  };
  /** Marks a delivery terminal the way the dispatcher would. */
  const finish = (id: string) => db().webhookDelivery.update({ where: { id }, data: { status: 'delivered', attempts: 1, responseStatus: 200 } });

  describe('payroll:read on every operation of a payroll webhook', () => {
    it.each(['salary_run.booked', 'agi.submitted'])(
      'a key without payroll:read cannot touch a %s webhook (403 required_scope payroll:read)',
      async (eventType) => {
        const owner = await makeTenant(db());
        const hook = await create(owner, { event_type: eventType, webhook_url: 'https://payroll.example.com/in' });
        const test = await call(app, 'POST', `${BASE}/companies/${owner.companyId}/webhooks/${hook.id}/test`, { key: owner.key });
        await finish(test.body.data.id);
        const thief = await makeKey(db(), owner.userId, { scopes: SCOPES.filter((s) => s !== 'payroll:read') });
        const path = `${BASE}/companies/${owner.companyId}/webhooks/${hook.id}`;
        const attempts: [string, string, unknown?][] = [
          ['GET', path],
          ['PATCH', path, { webhook_url: 'https://attacker.example.com/steal' }],
          ['PATCH', path, { active: false }],
          ['PATCH', path, { active: true }],
          ['DELETE', path],
          ['POST', `${path}/test`],
          ['GET', `${path}/deliveries`],
          ['POST', `${BASE}/webhook-deliveries/${test.body.data.id}/retry`],
          ['POST', `${path}/rotate-secret`, {}],
          ['POST', `${path}/expire-previous-secret`],
        ];
        const before = await db().webhook.findUniqueOrThrow({ where: { id: hook.id } });
        const deliveriesBefore = await db().webhookDelivery.count({ where: { webhookId: hook.id } });
        for (const [method, url, payload] of attempts) {
          const response = await call(app, method, url, { key: thief.key, body: payload, headers: { 'idempotency-key': randomUUID() } });
          expect(response.status, `${method} ${url}`).toBe(403);
          expect(response.body.error, `${method} ${url}`).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'payroll:read' });
        }
        expect(await db().webhook.findUniqueOrThrow({ where: { id: hook.id } })).toEqual(before);
        expect(await db().webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(deliveriesBefore);
        // Another company's payroll webhook still answers 404, not 403: nothing reveals it exists.
        const stranger = await makeTenant(
          db(),
          SCOPES.filter((s) => s !== 'payroll:read'),
        );
        expect((await call(app, 'GET', `${BASE}/companies/${stranger.companyId}/webhooks/${hook.id}`, { key: stranger.key })).status).toBe(404);
        // With payroll:read every one of them works.
        expect((await call(app, 'GET', `${path}/deliveries`, { key: owner.key })).status).toBe(200);
      },
    );
  });

  it('the 51st webhook of a company is refused', async () => {
    const full = await makeTenant(db());
    const existing = await db().webhook.count({ where: { companyId: full.companyId } });
    for (let i = existing; i < MAX_WEBHOOKS_PER_COMPANY; i++) await create(full, { name: `hook ${i}` });
    const refused = await call(app, 'POST', `${BASE}/companies/${full.companyId}/webhooks`, {
      key: full.key,
      body: body({ name: 'one too many' }),
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body', message: 'webhook limit reached' }] });
    expect(await db().webhook.count({ where: { companyId: full.companyId } })).toBe(MAX_WEBHOOKS_PER_COMPANY);
    const listed = await call(app, 'GET', `${BASE}/companies/${full.companyId}/webhooks`, { key: full.key });
    expect(listed.body.data.webhooks).toHaveLength(MAX_WEBHOOKS_PER_COMPANY);
  });

  describe('DNS for URL checks happens before the transaction, with a timeout', () => {
    /**
     * While a URL check waits on DNS, the database must be free: an unrelated read answers (on
     * the embedded database there is one connection, so a held transaction would block it), and
     * on PostgreSQL no connection of ours sits in a transaction.
     */
    async function whileDnsHangs(start: () => Promise<{ status: number }>, expected: number) {
      const heldBefore = dns.held;
      const pending = start();
      while (dns.held === heldBefore) await new Promise((resolve) => setTimeout(resolve, 5));
      const unrelated = await call(app, 'GET', `${BASE}/companies`, { key: tenant.key });
      expect(unrelated.status).toBe(200);
      if (target === 'postgres') {
        const [{ open }] = (await db().$queryRawUnsafe<{ open: number }[]>(
          `SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        )) as [{ open: number }];
        expect(open).toBe(0);
      }
      dns.release();
      expect((await pending).status).toBe(expected);
    }

    it('create', async () => {
      await whileDnsHangs(
        () =>
          call(app, 'POST', `${BASE}/companies/${tenant.companyId}/webhooks`, {
            key: tenant.key,
            body: body({ webhook_url: 'https://create.held.example.com/h' }),
            headers: { 'idempotency-key': randomUUID() },
          }),
        201,
      );
    });

    it('update (new URL, and re-enabling)', async () => {
      const hook = await create(tenant);
      const path = `${BASE}/companies/${tenant.companyId}/webhooks/${hook.id}`;
      await whileDnsHangs(() => call(app, 'PATCH', path, { key: tenant.key, body: { webhook_url: 'https://update.held.example.com/h' } }), 200);
      await call(app, 'PATCH', path, { key: tenant.key, body: { active: false } });
      await whileDnsHangs(() => call(app, 'PATCH', path, { key: tenant.key, body: { active: true } }), 200);
    });

    it('retry', async () => {
      const hook = await create(tenant);
      const source = await call(app, 'POST', `${BASE}/companies/${tenant.companyId}/webhooks/${hook.id}/test`, { key: tenant.key });
      await finish(source.body.data.id);
      await db().webhook.update({ where: { id: hook.id }, data: { webhookUrl: 'https://retry.held.example.com/h' } });
      await whileDnsHangs(() => call(app, 'POST', `${BASE}/webhook-deliveries/${source.body.data.id}/retry`, { key: tenant.key }), 202);
    });

    it('a name server that never answers is refused after the timeout as url_unsafe:dns_timeout', async () => {
      const previous = t.services.webhookUrlPolicy.resolveTimeoutMs;
      t.services.webhookUrlPolicy.resolveTimeoutMs = 50;
      try {
        const response = await call(app, 'POST', `${BASE}/companies/${tenant.companyId}/webhooks`, {
          key: tenant.key,
          body: body({ webhook_url: 'https://never.held.example.com/h' }),
          headers: { 'idempotency-key': randomUUID() },
        });
        expect(response.status).toBe(400);
        expect(response.body.error.details).toEqual([{ path: 'body.webhook_url', message: 'url_unsafe:dns_timeout' }]);
      } finally {
        t.services.webhookUrlPolicy.resolveTimeoutMs = previous;
        dns.release();
      }
    });
  });

  describe('delivery search', () => {
    it('filters by status, event type and a created_at window; a cursor pages within the filter', async () => {
      const hook = await create(tenant);
      const path = `${BASE}/companies/${tenant.companyId}/webhooks/${hook.id}`;
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await call(app, 'POST', `${path}/test`, { key: tenant.key })).body.data.id);
      // Spread them over three days and mark some delivered, as the dispatcher would have.
      for (const [i, id] of ids.entries()) {
        await db().$executeRawUnsafe(
          `UPDATE webhook_deliveries SET created_at = $2::timestamptz WHERE id = $1::uuid`,
          id,
          new Date(Date.UTC(2026, 10, 20 + Math.floor(i / 2), 12, i)),
        );
        if (i % 2 === 0) await finish(id);
      }
      const list = async (query: string) => {
        const response = await call(app, 'GET', `${path}/deliveries?${query}`, { key: tenant.key });
        expect(response.status, response.text).toBe(200);
        return response.body.data.deliveries.map((d: { id: string }) => d.id) as string[];
      };
      expect(await list('status=delivered')).toEqual([ids[4], ids[2], ids[0]]);
      expect(await list('status=pending')).toEqual([ids[5], ids[3], ids[1]]);
      expect(await list('status=dead')).toEqual([]);
      expect(await list('created_gte=2026-11-21T00:00:00Z&created_lt=2026-11-22T00:00:00Z')).toEqual([ids[3], ids[2]]);
      expect(await list('created_gte=2026-11-21T12:03:00%2B00:00')).toEqual([ids[5], ids[4], ids[3]]);
      expect(await list('status=pending&created_lt=2026-11-22T00:00:00Z')).toEqual([ids[3], ids[1]]);
      // Paging inside a filter: two pages of the three pending ones.
      const first = await call(app, 'GET', `${path}/deliveries?status=pending&limit=2`, { key: tenant.key });
      expect(first.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[5], ids[3]]);
      const cursor = encodeURIComponent(first.body.meta.pagination.next_cursor);
      const second = await call(app, 'GET', `${path}/deliveries?status=pending&limit=2&cursor=${cursor}`, { key: tenant.key });
      expect(second.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
      expect(second.body.meta.pagination.has_more).toBe(false);
    });

    it('refuses an unknown status, an unknown filter (a webhook has one event type) or a malformed instant with 400', async () => {
      const hook = await create(tenant);
      const path = `${BASE}/companies/${tenant.companyId}/webhooks/${hook.id}/deliveries`;
      for (const [query, field] of [
        ['status=lost', 'query.status'],
        ['event_type=nope', 'query.event_type'],
        ['created_gte=yesterday', 'query.created_gte'],
        ['created_lt=2026-13-45T99:99:99Z', 'query.created_lt'],
      ]) {
        const response = await call(app, 'GET', `${path}?${query}`, { key: tenant.key });
        expect(response.status, query).toBe(400);
        expect(response.body.error.details[0].path).toBe(field);
      }
    });
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('concurrent writes on one webhook on PostgreSQL', () => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await createTestServices('postgres');
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  const path = (id: string) => `${BASE}/companies/${tenant.companyId}/webhooks/${id}`;
  const create = async () => {
    const response = await call(app, 'POST', `${BASE}/companies/${tenant.companyId}/webhooks`, {
      key: tenant.key,
      body: body(),
      headers: { 'idempotency-key': randomUUID() },
    });
    return response.body.data.id as string;
  };
  const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort();

  it('10 DELETEs at once: one 204, nine 404, no 500', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await create();
      const responses = await Promise.all(Array.from({ length: 10 }, () => call(app, 'DELETE', path(id), { key: tenant.key })));
      expect(statuses(responses)).toEqual([204, ...Array(9).fill(404)]);
    }
  });

  it('DELETE beside PATCH, test or retry: each loser gets the answer it would get a moment later, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await create();
      const source = await call(app, 'POST', `${path(id)}/test`, { key: tenant.key });
      await t.services.database.prisma.webhookDelivery.update({ where: { id: source.body.data.id }, data: { status: 'delivered', attempts: 1 } });
      const [removed, patched, tested, retried, rotated] = await Promise.all([
        call(app, 'DELETE', path(id), { key: tenant.key }),
        call(app, 'PATCH', path(id), { key: tenant.key, body: { name: 'racing' } }),
        call(app, 'POST', `${path(id)}/test`, { key: tenant.key }),
        call(app, 'POST', `${BASE}/webhook-deliveries/${source.body.data.id}/retry`, { key: tenant.key }),
        call(app, 'POST', `${path(id)}/rotate-secret`, { key: tenant.key, headers: { 'idempotency-key': randomUUID() } }),
      ]);
      expect(removed.status).toBe(204);
      expect([200, 404]).toContain(patched.status);
      expect([202, 404]).toContain(tested.status);
      expect([202, 404]).toContain(retried.status);
      expect([200, 404]).toContain(rotated.status);
      // Whatever won, the webhook is gone and no delivery points at it.
      expect(await t.services.database.prisma.webhookDelivery.count({ where: { webhookId: id } })).toBe(0);
    }
  });
});
