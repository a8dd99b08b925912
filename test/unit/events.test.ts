import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_CATALOG, EVENT_TYPES, EventEnvelope, EventType, eventEnvelopeSchemaFor, isPayrollEventType } from '../../domain/events/types.ts';

const envelopeFor = (type: EventType, object: unknown) => ({
  id: 'evt_01JD3K9QZ7X4M2N8P5R6T0V1W2',
  type,
  api_version: '2026-11-01',
  created_at: '2026-11-14T10:00:41.000Z',
  company_id: '8b0f6c2e-4d1a-4e3b-9f7c-2a5d8e1b6c40',
  livemode: true,
  data: { object, previous_attributes: null },
});

describe('event types', () => {
  it('has exactly 24 unique types, all in the catalogue', () => {
    expect(EVENT_TYPES).toHaveLength(24);
    expect(new Set(EVENT_TYPES).size).toBe(24);
    expect(Object.keys(EVENT_CATALOG).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('EventType accepts known names and rejects unknown ones', () => {
    for (const type of EVENT_TYPES) expect(EventType.parse(type)).toBe(type);
    for (const bad of ['invoice.paid', 'salary_run.*', 'Company.Updated', '', 'company.updated ']) {
      expect(EventType.safeParse(bad).success).toBe(false);
    }
  });

  it('every entry has a group and a one-sentence description', () => {
    for (const type of EVENT_TYPES) {
      const { group, description } = EVENT_CATALOG[type];
      expect(group).not.toBe('');
      expect(description).toMatch(/^[A-Z].*\.$/);
    }
  });
});

describe('payroll gating', () => {
  const expected = EVENT_TYPES.filter((t) => t.startsWith('salary_run.') || t.startsWith('agi.'));

  it('flags exactly the salary_run.* and agi.* types', () => {
    const flagged = EVENT_TYPES.filter((t) => EVENT_CATALOG[t].payroll);
    expect(expected).toHaveLength(6);
    expect(flagged).toEqual(expected);
  });

  it('isPayrollEventType agrees with the catalogue and is false for unknown names', () => {
    for (const type of EVENT_TYPES) expect(isPayrollEventType(type)).toBe(expected.includes(type));
    expect(isPayrollEventType('salary_run.deleted')).toBe(false);
    expect(isPayrollEventType('constructor')).toBe(false);
  });
});

describe.each(EVENT_TYPES)('%s', (type) => {
  const { object, example } = EVENT_CATALOG[type];
  const schema = eventEnvelopeSchemaFor(type);

  it('example parses with its object schema', () => {
    expect(object.safeParse(example).error).toBeUndefined();
  });

  it('example parses inside its narrowed envelope and the generic one', () => {
    const payload = envelopeFor(type, example);
    expect(schema.safeParse(payload).error).toBeUndefined();
    expect(EventEnvelope.safeParse(payload).error).toBeUndefined();
  });

  it('rejects an object of the wrong shape', () => {
    // A company object is wrong for every type but company.updated; an empty object is wrong for all.
    const wrong = type === 'company.updated' ? EVENT_CATALOG['account.created'].example : EVENT_CATALOG['company.updated'].example;
    for (const bad of [wrong, {}, null]) {
      expect(object.safeParse(bad).success).toBe(false);
      expect(schema.safeParse(envelopeFor(type, bad)).success).toBe(false);
      expect(EventEnvelope.safeParse(envelopeFor(type, bad)).success).toBe(false);
    }
  });

  it('narrowed envelope rejects a different type name', () => {
    const other = type === 'webhook.disabled' ? 'company.updated' : 'webhook.disabled';
    expect(schema.safeParse(envelopeFor(other, example)).success).toBe(false);
  });
});

describe('envelope', () => {
  const base = envelopeFor('operation.succeeded', EVENT_CATALOG['operation.succeeded'].example);

  it('accepts uuid ids and previous_attributes records', () => {
    const payload = {
      ...base,
      id: '0b7c3e9a-5f2d-4a61-8e4b-9c1d6f3a7b20',
      data: { ...base.data, previous_attributes: { status: 'running' } },
    };
    expect(EventEnvelope.safeParse(payload).error).toBeUndefined();
  });

  it('rejects malformed envelope fields', () => {
    for (const patch of [{ id: 'op_123' }, { type: 'invoice.paid' }, { created_at: '14/11/2026' }, { company_id: 'acme' }, { livemode: 'yes' }]) {
      expect(EventEnvelope.safeParse({ ...base, ...patch }).success).toBe(false);
    }
  });

  it('rejects an object that belongs to another type', () => {
    const payload = envelopeFor('operation.succeeded', EVENT_CATALOG['salary_run.booked'].example);
    expect(EventEnvelope.safeParse(payload).success).toBe(false);
  });
});

describe('static types', () => {
  it('narrow data.object by event type', () => {
    const booked = eventEnvelopeSchemaFor('salary_run.booked').parse(envelopeFor('salary_run.booked', EVENT_CATALOG['salary_run.booked'].example));
    expectTypeOf(booked.type).toEqualTypeOf<'salary_run.booked'>();
    expectTypeOf(booked.data.object.gross).toEqualTypeOf<number>();

    const any: EventEnvelope = EventEnvelope.parse(envelopeFor('agi.submitted', EVENT_CATALOG['agi.submitted'].example));
    if (any.type === 'agi.submitted') {
      expectTypeOf(any.data.object.submitted_at).toEqualTypeOf<string | null>();
      expect(any.data.object.status).toBe('submitted');
    } else {
      expect.unreachable();
    }
  });
});
