import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, systemContext, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { emitEvent } from '../../../domain/events/emit.ts';
import { withTransaction } from '../../../domain/context.ts';
import { EVENT_CATALOG, EVENT_TYPES, isPayrollEventType, type EventType } from '../../../domain/events/types.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';

const EVENTS = 2500;
/** Emitted per clock tick: most events share their created_at with neighbours, so pages split ties. */
const EVENTS_PER_TICK = 7;
const START = Date.parse('2026-11-20T08:00:00.000Z');

// ajv-formats is CommonJS with a default export; under NodeNext its callable sits on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

describe.each(DB_TARGETS)('events API (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let clock = START;
  /** Ids in the order emitted (also creation order, since the clock never goes back). */
  const emitted: { id: string; type: EventType; at: number }[] = [];

  /** The catalogue's example object of a type, moved into the tenant's company. */
  const objectFor = (type: EventType, companyId: string): Record<string, unknown> => {
    const example = EVENT_CATALOG[type].example as Record<string, unknown>;
    return type.startsWith('company.') ? { ...example, id: companyId } : { ...example, company_id: companyId };
  };

  async function emit(type: EventType, companyId = tenant.companyId): Promise<string> {
    const { eventId } = await emitEvent(systemContext(t.services), companyId, type, objectFor(type, companyId), null);
    return eventId;
  }

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => new Date(clock) });
    app = createApp(t.services, registry);
    tenant = await makeTenant(t.services.database.prisma);
    // Through emitEvent, as every write emits; batched in transactions only to keep the suite quick.
    const ctx = systemContext(t.services);
    for (let batch = 0; batch < EVENTS / 250; batch++) {
      await withTransaction(ctx, async (tx) => {
        for (let i = 0; i < 250; i++) {
          const n = batch * 250 + i;
          clock = START + Math.floor(n / EVENTS_PER_TICK) * 1000;
          const type = EVENT_TYPES[n % EVENT_TYPES.length]!;
          const { eventId } = await emitEvent(tx, tenant.companyId, type, objectFor(type, tenant.companyId), null);
          emitted.push({ id: eventId, type, at: clock });
        }
      });
    }
  }, 300_000);
  afterAll(async () => t?.close());

  /** Creation order as the feed defines it: created_at, then id. */
  const feedOrder = (events: typeof emitted): string[] => [...events].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((e) => e.id);

  async function walk(key: string, limit: number, extra = ''): Promise<{ ids: string[]; lastCursor: string | null }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page <= EVENTS; page++) {
      const query: string = `?limit=${limit}${extra}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events${query}`, { key });
      expect(response.status, response.text).toBe(200);
      ids.push(...response.body.data.events.map((e: { id: string }) => e.id));
      const { has_more, next_cursor } = response.body.meta.pagination;
      if (!has_more) return { ids, lastCursor: next_cursor };
      cursor = next_cursor;
    }
    throw new Error('pagination did not terminate');
  }

  it.each([200, 37])('pages through 2,500 events (%i a page) with no gap or repeat, in creation order', async (limit) => {
    const { ids } = await walk(tenant.key, limit);
    expect(ids.length).toBe(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    expect(ids).toEqual(feedOrder(emitted));
  });

  it('returns each event exactly as stored for delivery', async () => {
    const [first] = emitted;
    const got = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events/${first!.id}`, { key: tenant.key });
    expect(got.status).toBe(200);
    const stored = await t.services.database.prisma.event.findUniqueOrThrow({ where: { id: first!.id } });
    expect(got.body.data).toEqual(stored.payload);
    expect(got.body.data.created_at).toBe(new Date(START).toISOString());
  });

  it('hides payroll and AGI events from keys without payroll:read: absent from lists, 404 by id', async () => {
    const noPayroll = (await makeKey(t.services.database.prisma, tenant.userId, { scopes: SCOPES.filter((scope) => scope !== 'payroll:read') })).key;
    const visible = emitted.filter((e) => !isPayrollEventType(e.type));
    expect(visible.length).toBeLessThan(EVENTS);
    const { ids } = await walk(noPayroll, 200);
    expect(ids).toEqual(feedOrder(visible));

    const payroll = emitted.find((e) => e.type === 'salary_run.booked')!;
    const agi = emitted.find((e) => e.type === 'agi.generated')!;
    const unknown = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events/00000000-0000-4000-8000-000000000000`, { key: noPayroll });
    expect(unknown.status).toBe(404);
    for (const hidden of [payroll, agi]) {
      const response = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events/${hidden.id}`, { key: noPayroll });
      expect(response.status).toBe(404);
      // Byte-identical to an unknown id apart from the request id: nothing says it exists.
      expect({ ...response.body.error, request_id: null }).toEqual({ ...unknown.body.error, request_id: null });
      const allowed = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events/${hidden.id}`, { key: tenant.key });
      expect(allowed.status).toBe(200);
    }

    // Asking for a payroll type by name is refused with the scope to get, as for a payroll webhook.
    const asked = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events?type=agi.generated`, { key: noPayroll });
    expect(asked.status).toBe(403);
    expect(asked.body.error.required_scope).toBe('payroll:read');
  });

  it('filters by type and created range', async () => {
    const types: EventType[] = ['journal_entry.committed', 'period.locked'];
    const { ids } = await walk(tenant.key, 200, `&type=${types.join(',')}`);
    expect(ids).toEqual(feedOrder(emitted.filter((e) => types.includes(e.type))));

    const from = START + 100_000;
    const to = START + 200_000;
    const ranged = await walk(tenant.key, 200, `&created_gte=${new Date(from).toISOString()}&created_lt=${encodeURIComponent('2026-11-20T09:03:20+01:00')}`);
    expect(to).toBe(Date.parse('2026-11-20T09:03:20+01:00'));
    expect(ranged.ids).toEqual(feedOrder(emitted.filter((e) => e.at >= from && e.at < to)));
    expect(ranged.ids.length).toBe(100 * EVENTS_PER_TICK);

    const bad = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events?type=journal_entry.committed,invoice.paid`, { key: tenant.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('query.type.1');
    expect(bad.body.error.valid_alternatives).toEqual(expect.arrayContaining([...EVENT_TYPES]));
  });

  it('keeps its place at the end of the feed: the last cursor returns only newer events', async () => {
    const { ids, lastCursor } = await walk(tenant.key, 200);
    expect(ids.length).toBe(EVENTS);
    expect(lastCursor).not.toBeNull();
    const empty = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events?cursor=${lastCursor}`, { key: tenant.key });
    expect(empty.body.data.events).toEqual([]);
    expect(empty.body.meta.pagination).toEqual({ has_more: false, next_cursor: lastCursor });

    clock += 1000;
    const newer = await emit('period.unlocked');
    const next = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events?cursor=${lastCursor}`, { key: tenant.key });
    expect(next.body.data.events.map((e: { id: string }) => e.id)).toEqual([newer]);
    emitted.push({ id: newer, type: 'period.unlocked', at: clock });
  });

  it('keeps companies apart and checks the scope', async () => {
    const other = await makeTenant(t.services.database.prisma);
    const theirs = await emit('company.updated', other.companyId);
    const mine = emitted[0]!.id;
    // Their event through my company's path, and my company's feed with their key: both unknown.
    expect((await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events/${theirs}`, { key: tenant.key })).status).toBe(404);
    expect((await call(app, 'GET', `/api/v1/companies/${other.companyId}/events/${mine}`, { key: other.key })).status).toBe(404);
    expect((await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events`, { key: other.key })).status).toBe(404);
    const theirFeed = await call(app, 'GET', `/api/v1/companies/${other.companyId}/events`, { key: other.key });
    expect(theirFeed.body.data.events.map((e: { id: string }) => e.id)).toEqual([theirs]);
    // A cursor from my feed means nothing in theirs: it restarts at their first page.
    const { lastCursor } = await walk(tenant.key, 200);
    const crossed = await call(app, 'GET', `/api/v1/companies/${other.companyId}/events?cursor=${lastCursor}`, { key: other.key });
    expect(crossed.body.data.events.map((e: { id: string }) => e.id)).toEqual([theirs]);

    const noEvents = (await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['companies:read'] })).key;
    const refused = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/events`, { key: noEvents });
    expect(refused.status).toBe(403);
    expect(refused.body.error.required_scope).toBe('events:read');
  });

  it('lists the 24 event types publicly, each schema accepting its example and a real emitted event', async () => {
    const response = await call(app, 'GET', '/api/v1/event-types');
    expect(response.status).toBe(200);
    const types = response.body.data.event_types as {
      type: EventType;
      schema: object;
      example: unknown;
      personal_data: boolean;
      required_scopes: { webhooks: string[]; events: string[] };
    }[];
    expect(types.map((entry) => entry.type)).toEqual([...EVENT_TYPES]);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const entry of types) {
      const validate = ajv.compile(entry.schema);
      expect(validate(entry.example), `${entry.type} example: ${ajv.errorsText(validate.errors)}`).toBe(true);
      const real = emitted.find((e) => e.type === entry.type)!;
      const stored = await t.services.database.prisma.event.findUniqueOrThrow({ where: { id: real.id } });
      expect(validate(stored.payload), `${entry.type} emitted: ${ajv.errorsText(validate.errors)}`).toBe(true);
      // The schema is per type: another type's event is refused.
      const otherType = EVENT_TYPES[(EVENT_TYPES.indexOf(entry.type) + 1) % EVENT_TYPES.length]!;
      expect(validate({ ...(entry.example as object), type: otherType })).toBe(false);
      expect(entry.personal_data).toBe(isPayrollEventType(entry.type));
      const payroll = entry.personal_data ? ['payroll:read'] : [];
      expect(entry.required_scopes).toEqual({ webhooks: ['webhooks:manage', ...payroll], events: ['events:read', ...payroll] });
    }
    expect(types.filter((entry) => entry.personal_data).map((entry) => entry.type)).toEqual([
      'salary_run.created',
      'salary_run.approved',
      'salary_run.booked',
      'salary_run.cancelled',
      'agi.generated',
      'agi.submitted',
    ]);
  });

  it('pages the event types in catalogue order, each once, and filters by personal_data', async () => {
    const walk = async (query: string): Promise<string[]> => {
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page <= EVENT_TYPES.length; page++) {
        const response = await call(app, 'GET', `/api/v1/event-types?${query}${cursor && `&cursor=${cursor}`}`);
        expect(response.status, response.text).toBe(200);
        seen.push(...response.body.data.event_types.map((entry: { type: string }) => entry.type));
        if (!response.body.meta.pagination.has_more) return seen;
        cursor = response.body.meta.pagination.next_cursor;
      }
      throw new Error('pagination did not terminate');
    };
    expect(await walk('limit=5')).toEqual([...EVENT_TYPES]);
    expect(await walk('limit=4&personal_data=true')).toEqual(EVENT_TYPES.filter(isPayrollEventType));
    expect(await walk('limit=7&personal_data=false')).toEqual(EVENT_TYPES.filter((type) => !isPayrollEventType(type)));
    for (const query of ['page=2', 'limit=0', 'personal_data=yes']) expect((await call(app, 'GET', `/api/v1/event-types?${query}`)).status, query).toBe(400);
  });
});
