import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';

/**
 * A payroll webhook (one subscribed to salary_run.* or agi.*) exists only for keys holding
 * payroll:read: absent from the webhooks list, and its webhook.disabled event absent from the
 * events feed, 404 by id, and delivered to no webhook.disabled subscriber (whose owner need not
 * hold payroll:read). Before issue 28 the list showed it to any webhooks:manage key.
 */
describe.each(DB_TARGETS)('payroll webhooks are invisible without payroll:read (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let noPayroll: string;
  let payrollHook: string;
  let plainHook: string;
  let watcher: string;

  const send = (method: string, path: string, key: string, body?: unknown) =>
    call(app, method, `/api/v1/companies/${tenant.companyId}${path}`, {
      key,
      headers: { 'idempotency-key': randomUUID() },
      ...(body !== undefined && { body }),
    });
  const hook = async (event_type: string, key: string) => {
    const created = await send('POST', '/webhooks', key, { event_type, webhook_url: 'https://hooks.example.com/x', name: event_type, description: '' });
    expect(created.status, created.text).toBe(201);
    return created.body.data.id as string;
  };

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry, []);
    tenant = await makeTenant(t.services.database.prisma);
    noPayroll = (await makeKey(t.services.database.prisma, tenant.userId, { scopes: SCOPES.filter((s) => s !== 'payroll:read') })).key;
    payrollHook = await hook('salary_run.booked', tenant.key);
    plainHook = await hook('journal_entry.committed', noPayroll);
    watcher = await hook('webhook.disabled', noPayroll);
    const disabled = await send('PATCH', `/webhooks/${payrollHook}`, tenant.key, { active: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect((await send('PATCH', `/webhooks/${plainHook}`, noPayroll, { active: false })).status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('lists payroll webhooks only to keys with payroll:read', async () => {
    const without = await send('GET', '/webhooks', noPayroll);
    expect(without.status).toBe(200);
    const ids = without.body.data.webhooks.map((w: { id: string }) => w.id);
    expect(ids).toEqual(expect.arrayContaining([plainHook, watcher]));
    expect(ids).not.toContain(payrollHook);
    expect(without.text).not.toContain('salary_run');
    const withScope = await send('GET', '/webhooks', tenant.key);
    expect(withScope.body.data.webhooks.map((w: { id: string }) => w.id)).toContain(payrollHook);
  });

  it("hides a payroll webhook's webhook.disabled event from the feed and by id without payroll:read", async () => {
    const all = await send('GET', '/events?type=webhook.disabled', tenant.key);
    const events = all.body.data.events as { id: string; data: { object: { id: string } } }[];
    const payrollEvent = events.find((e) => e.data.object.id === payrollHook);
    expect(payrollEvent).toBeDefined();
    expect(events.some((e) => e.data.object.id === plainHook)).toBe(true);
    const without = await send('GET', '/events?type=webhook.disabled', noPayroll);
    expect(without.status).toBe(200);
    const seen = (without.body.data.events as { data: { object: { id: string } } }[]).map((e) => e.data.object.id);
    expect(seen).toContain(plainHook);
    expect(seen).not.toContain(payrollHook);
    expect((await send('GET', '/events', noPayroll)).text).not.toContain(payrollHook);
    expect((await send('GET', `/events/${payrollEvent?.id}`, noPayroll)).status).toBe(404);
    expect((await send('GET', `/events/${payrollEvent?.id}`, tenant.key)).status).toBe(200);
  });

  it('delivers it to no webhook.disabled subscriber', async () => {
    const deliveries = await send('GET', `/webhooks/${watcher}/deliveries`, noPayroll);
    expect(deliveries.status).toBe(200);
    const about = (deliveries.body.data.deliveries as { event_id: string }[]).map((d) => d.event_id);
    const [row] = await t.services.database.prisma.$queryRaw<{ payroll: bigint; plain: bigint }[]>`
      SELECT count(*) FILTER (WHERE payload->'data'->'object'->>'id' = ${payrollHook}) AS payroll,
             count(*) FILTER (WHERE payload->'data'->'object'->>'id' = ${plainHook}) AS plain
        FROM webhook_deliveries WHERE webhook_id = ${watcher}::uuid`;
    expect(Number(row?.plain)).toBe(1);
    expect(Number(row?.payroll)).toBe(0);
    expect(about).toHaveLength(1);
  });
});
