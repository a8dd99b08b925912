import { z } from 'zod';
import { AnyEventEnvelope, EVENT_TYPES, EventType } from './types.ts';
import { PaginationQuery } from '../kernel/pagination.ts';
import { booksInstant } from '../kernel/books-dates.ts';

export const EventId = z.uuid().describe("Event id (uuid), from the events list or a delivery's X-Service-Event-Id header.");

/** What the feed returns per event: the stored delivery payload, byte for byte the same shape. */
export const Event = AnyEventEnvelope;
export type Event = AnyEventEnvelope;

const Instant = booksInstant({ offset: true });

/** `a,b` → [a, b]; each must be a public event type (an unknown one lists the valid names). */
const EventTypeList = z
  .string()
  .max(EVENT_TYPES.length * 32)
  .transform((text) => text.split(',').map((part) => part.trim()))
  .pipe(z.array(EventType).min(1));

export const ListEventsQuery = PaginationQuery.extend({
  type: EventTypeList.optional().describe(
    'Only these event types, comma-separated, e.g. journal_entry.committed,period.locked (listEventTypes names them all).',
  ),
  created_gte: Instant.optional().describe('Only events created at or after this instant (ISO 8601, e.g. 2026-11-21T00:00:00Z).'),
  created_lt: Instant.optional().describe('Only events created before this instant (ISO 8601).'),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;
