import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeKey } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { connectInProcess } from '../../helpers/mcp-client.ts';
import { dereference } from '../../helpers/discovery.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { EventEnvelope } from '../../../domain/events/types.ts';

/**
 * Expansions (spec "meta.partial_expansions"; DESIGN.md §6): the deliveries list offers
 * `expand=webhook,event,attempts`, declared once on the operation; an expansion the key may not
 * see, or whose target is gone, is left out and named in meta.partial_expansions while the call
 * succeeds. Delivery records carry their event_id, and a test delivery's object belongs to the
 * company its envelope names.
 */

engineSuite('delivery expansions and delivery records', { app: (services) => buildApp(services), tenant: true }, (t) => {
  let hook: { id: string };
  let eventDeliveryId: string;
  let testDeliveryId: string;
  const deliveries = () => `/api/v1/companies/${t.tenant.companyId}/webhooks/${hook.id}/deliveries`;

  beforeAll(async () => {
    const created = await call(t.app, 'POST', `/api/v1/companies/${t.tenant.companyId}/webhooks`, {
      key: t.tenant.key,
      headers: { 'idempotency-key': randomUUID() },
      body: { event_type: 'company.updated', webhook_url: 'https://hooks.example.com/company', name: 'Company mirror' },
    });
    expect(created.status, created.text).toBe(201);
    hook = created.body.data;
    // A real event (the company changes) and a test delivery: one of each kind of delivery.
    const patched = await call(t.app, 'PATCH', `/api/v1/companies/${t.tenant.companyId}`, { key: t.tenant.key, body: { name: 'Renamed AB' } });
    expect(patched.status).toBe(200);
    const tested = await call(t.app, 'POST', `/api/v1/companies/${t.tenant.companyId}/webhooks/${hook.id}/test`, { key: t.tenant.key });
    expect(tested.status, tested.text).toBe(202);
    testDeliveryId = tested.body.data.id;
    const listed = await call(t.app, 'GET', deliveries(), { key: t.tenant.key });
    eventDeliveryId = listed.body.data.deliveries.find((d: { test: boolean }) => !d.test).id;
  });

  it("shows every delivery's event_id: the stored event, or the test delivery's own (the id its receiver sees)", async () => {
    const listed = await call(t.app, 'GET', deliveries(), { key: t.tenant.key });
    const byId = new Map(listed.body.data.deliveries.map((d: { id: string }) => [d.id, d]));
    const db = t.services.database.prisma;
    const event = await db.event.findFirstOrThrow({ where: { companyId: t.tenant.companyId, type: 'company.updated' } });
    expect(byId.get(eventDeliveryId)).toMatchObject({ event_id: event.id, test: false });
    const testRow = await db.webhookDelivery.findUniqueOrThrow({ where: { id: testDeliveryId } });
    const testPayload = testRow.payload as { id: string };
    expect(byId.get(testDeliveryId)).toMatchObject({ event_id: testPayload.id, test: true });
  });

  it("makes a test delivery's object belong to the company its envelope names", async () => {
    const db = t.services.database.prisma;
    const own = EventEnvelope.parse((await db.webhookDelivery.findUniqueOrThrow({ where: { id: testDeliveryId } })).payload);
    expect(own.company_id).toBe(t.tenant.companyId);
    // company.* objects are the company itself: the real one, not the catalogue's example.
    expect(own.data.object).toMatchObject({ id: t.tenant.companyId, name: 'Renamed AB', livemode: false });

    const ledger = await call(t.app, 'POST', `/api/v1/companies/${t.tenant.companyId}/webhooks`, {
      key: t.tenant.key,
      headers: { 'idempotency-key': randomUUID() },
      body: { event_type: 'journal_entry.committed', webhook_url: 'https://hooks.example.com/ledger', name: 'Ledger' },
    });
    const tested = await call(t.app, 'POST', `/api/v1/companies/${t.tenant.companyId}/webhooks/${ledger.body.data.id}/test`, { key: t.tenant.key });
    const owned = EventEnvelope.parse((await db.webhookDelivery.findUniqueOrThrow({ where: { id: tested.body.data.id } })).payload);
    expect(owned.company_id).toBe(t.tenant.companyId);
    expect((owned.data.object as { company_id: string }).company_id).toBe(t.tenant.companyId);
  });

  it('expands webhook, event and attempts, naming what is left out in meta.partial_expansions', async () => {
    const response = await call(t.app, 'GET', `${deliveries()}?expand=attempts,webhook,event`, { key: t.tenant.key });
    expect(response.status).toBe(200);
    const webhook = (await call(t.app, 'GET', `/api/v1/companies/${t.tenant.companyId}/webhooks/${hook.id}`, { key: t.tenant.key })).body.data;
    const byId = new Map<string, any>(response.body.data.deliveries.map((d: { id: string }) => [d.id, d]));
    for (const delivery of byId.values()) {
      expect(delivery.webhook).toEqual(webhook);
      expect(delivery.attempt_history).toEqual([]);
    }
    const expandedEvent = byId.get(eventDeliveryId).event;
    expect(expandedEvent).toMatchObject({ id: byId.get(eventDeliveryId).event_id, type: 'company.updated', company_id: t.tenant.companyId });
    expect(expandedEvent.data.object).toMatchObject({ id: t.tenant.companyId, name: 'Renamed AB' });
    // A test delivery's event is synthetic and never stored: its target is not there.
    expect(byId.get(testDeliveryId)).not.toHaveProperty('event');
    expect(response.body.meta.partial_expansions).toEqual([{ expansion: 'event', reason: 'not_found', ids: [testDeliveryId] }]);

    const plain = await call(t.app, 'GET', deliveries(), { key: t.tenant.key });
    expect(plain.body.meta).not.toHaveProperty('partial_expansions');
    for (const delivery of plain.body.data.deliveries) for (const field of ['webhook', 'event', 'attempt_history']) expect(delivery).not.toHaveProperty(field);
  });

  it('leaves out an expansion the key lacks the scope for, and still answers 200', async () => {
    const narrow = await makeKey(t.services.database.prisma, t.tenant.userId, { scopes: SCOPES.filter((scope) => scope !== 'events:read') });
    const response = await call(t.app, 'GET', `${deliveries()}?expand=event,webhook`, { key: narrow.key });
    expect(response.status).toBe(200);
    const ids = response.body.data.deliveries.map((d: { id: string }) => d.id);
    expect(response.body.meta.partial_expansions).toEqual([{ expansion: 'event', reason: 'insufficient_scope', required_scope: 'events:read', ids }]);
    for (const delivery of response.body.data.deliveries) {
      expect(delivery).not.toHaveProperty('event');
      expect(delivery.webhook.id).toBe(hook.id);
    }
  });

  it('refuses an unknown expansion, naming the valid ones', async () => {
    const unknown = await call(t.app, 'GET', `${deliveries()}?expand=webhook,secrets`, { key: t.tenant.key });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_ERROR');
    expect(unknown.body.error.valid_alternatives).toEqual(['webhook', 'event', 'attempts']);
  });

  it('documents expand as a query parameter and a tool argument, and partial_expansions in meta', async () => {
    const document: any = await dereference((await call(t.app, 'GET', '/api/v1/openapi.json')).body);
    const operation = document.paths['/companies/{companyId}/webhooks/{id}/deliveries'].get;
    const expand = operation.parameters.find((p: { name: string }) => p.name === 'expand');
    expect(expand).toMatchObject({ in: 'query' });
    expect(expand.required).toBeUndefined();
    for (const name of ['webhook', 'event', 'attempts', 'events:read', 'meta.partial_expansions']) expect(expand.description).toContain(name);
    const meta = operation.responses['200'].content['application/json'].schema.properties.meta;
    expect(Object.keys(meta.properties.partial_expansions.items.properties)).toEqual(['expansion', 'reason', 'required_scope', 'ids']);
    const item = operation.responses['200'].content['application/json'].schema.properties.data.properties.deliveries.items;
    expect(item.required).not.toContain('webhook');
    expect(Object.keys(item.properties)).toEqual(expect.arrayContaining(['webhook', 'event', 'attempt_history']));

    const client = await connectInProcess(t.app, { key: t.tenant.key });
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) => candidate.title === operation.summary);
    expect((tool?.inputSchema.properties as Record<string, { description?: string }> | undefined)?.expand?.description).toContain('partial_expansions');
    await client.close();
  });
});
