import { z } from 'zod';
import { EVENT_CATALOG, EVENT_TYPES, EventType, PAYROLL_SCOPE, eventEnvelopeSchemaFor } from './types.ts';
import { Scope } from '../kernel/scopes.ts';
import { API_VERSION } from '../kernel/version.ts';
import { PaginationQuery, staticPage, type PaginationMeta } from '../kernel/pagination.ts';

/**
 * The event-type catalogue as callers read it (listEventTypes): per type its JSON Schema, an
 * example delivery, the scopes that receive it and whether it carries personal data. Derived
 * from domain/events/types.ts only, so it cannot drift from what emitEvent checks.
 */

/** Receiving through a webhook needs the webhook scope; reading the feed needs events:read. */
const WEBHOOK_SCOPE = 'webhooks:manage' satisfies Scope;
const FEED_SCOPE = 'events:read' satisfies Scope;

const JsonObject = z.record(z.string(), z.unknown());

export const EventTypeInfo = z.object({
  type: EventType,
  family: z.string().describe('The family the type belongs to, e.g. "company and ledger".'),
  description: z.string(),
  personal_data: z
    .boolean()
    .describe(`True for payroll and employer-declaration (AGI) events: they carry pay per person and reach only keys holding ${PAYROLL_SCOPE}.`),
  required_scopes: z
    .object({
      webhooks: z.array(Scope).describe('Scopes a key needs to subscribe a webhook to this type.'),
      events: z.array(Scope).describe('Scopes a key needs to see this type in the events feed (listEvents, getEvent).'),
    })
    .describe('The scopes needed to receive this type, per channel.'),
  schema: JsonObject.describe('JSON Schema (draft 2020-12) of the whole delivered event, with data.object narrowed to this type.'),
  example: JsonObject.describe('An example event of this type, as delivered and as listEvents returns it.'),
});
export type EventTypeInfo = z.infer<typeof EventTypeInfo>;

export const EventTypeListQuery = z
  .strictObject({
    personal_data: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional()
      .describe('true: only payroll and AGI types; false: only the others.'),
  })
  .extend(PaginationQuery.shape);
export type EventTypeListQuery = z.infer<typeof EventTypeListQuery>;

/** The catalogue in its own order, filtered, a page at a time. */
export function pageEventTypes(query: EventTypeListQuery): { event_types: EventTypeInfo[]; pagination: PaginationMeta } {
  const rows = describeEventTypes().filter((info) => query.personal_data === undefined || info.personal_data === query.personal_data);
  const { page, pagination } = staticPage('event_types', rows, query, (info) => info.type);
  return { event_types: page, pagination };
}

const SAMPLE_EVENT_ID = 'evt_4Jq8Zr2LmX9sVb3N';
const SAMPLE_TIME = '2026-11-21T10:00:00.000Z';

/** A delivered event of this type (DESIGN.md §6 "event payload") around the catalogue's example object. */
export function eventExample(type: EventType): Record<string, unknown> {
  const object = EVENT_CATALOG[type].example as Record<string, unknown>;
  // company.* objects are the company itself; every other object carries its company_id.
  const companyId = typeof object.company_id === 'string' ? object.company_id : object.id;
  return {
    id: SAMPLE_EVENT_ID,
    type,
    api_version: API_VERSION,
    created_at: SAMPLE_TIME,
    company_id: companyId,
    livemode: typeof object.livemode === 'boolean' ? object.livemode : true,
    data: { object, previous_attributes: null },
  };
}

function describeEventType(type: EventType): EventTypeInfo {
  const entry = EVENT_CATALOG[type];
  const payroll: Scope[] = entry.payroll ? [PAYROLL_SCOPE] : [];
  const schema = z.toJSONSchema(eventEnvelopeSchemaFor(type), { io: 'output', target: 'draft-2020-12' }) as Record<string, unknown>;
  return {
    type,
    family: entry.group,
    description: entry.description,
    personal_data: entry.payroll,
    required_scopes: { webhooks: [WEBHOOK_SCOPE, ...payroll], events: [FEED_SCOPE, ...payroll] },
    schema,
    example: eventExample(type),
  };
}

// Each type converted once per process (the schemas never change at run time), and only when
// asked: an operation's example describes one type at module load, on every start.
const described = new Map<EventType, EventTypeInfo>();

export function describedEventType(type: EventType): EventTypeInfo {
  let info = described.get(type);
  if (!info) described.set(type, (info = describeEventType(type)));
  return info;
}

/** All 24 types in catalogue order. */
export const describeEventTypes = (): EventTypeInfo[] => EVENT_TYPES.map(describedEventType);
