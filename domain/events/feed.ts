import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { EVENTS_ABOUT_WEBHOOKS, EVENT_TYPES, PAYROLL_SCOPE, isPayrollEventType } from './types.ts';
import { decodeCursor, encodeCursor, keysetTimestampSql, type PaginationMeta } from '../kernel/pagination.ts';
import { hasScope } from '../kernel/scopes.ts';
import { Event, type ListEventsQuery } from './schemas.ts';

/**
 * The events feed: every event a company's writes emitted, oldest first, on a keyset of
 * (created_at, id) — the replay a receiver reads after an outage. Payroll and AGI events are
 * personal data and exist only for keys holding payroll:read: absent from lists, 404 by id.
 */

const FEED_SCOPE = 'events:read';
const PAYROLL_TYPES = EVENT_TYPES.filter(isPayrollEventType);

interface FeedRow {
  id: string;
  created_key: string;
  payload: unknown;
}

const listName = (companyId: string): string => `events:${companyId}`;

/**
 * SQL: the event is not hidden from this caller ($3, the hidden types): neither of a payroll type
 * nor about a webhook subscribed to one (isPayrollEvent in types.ts says the same in TypeScript).
 */
const VISIBLE = `type <> ALL (string_to_array($3::text, ','))
        AND NOT (type = ANY ('{${EVENTS_ABOUT_WEBHOOKS.join(',')}}'::text[]) AND payload->'data'->'object'->>'event_type' = ANY (string_to_array($3::text, ',')))`;

/** The types this caller may not see, as the comma list the SQL splits (empty: none hidden). */
function hiddenTypes(ctx: OperationContext): string {
  const actor = requireScope(ctx, FEED_SCOPE);
  return hasScope(actor.scopes, PAYROLL_SCOPE) ? '' : PAYROLL_TYPES.join(',');
}

export async function listEvents(ctx: OperationContext, companyId: string, query: ListEventsQuery): Promise<{ events: Event[]; pagination: PaginationMeta }> {
  const hidden = hiddenTypes(ctx);
  // Asking for a payroll type by name without the scope is refused like a payroll webhook is,
  // rather than answered with a silently empty list.
  const forbidden = query.type?.find((type) => hidden !== '' && isPayrollEventType(type));
  if (forbidden) {
    throw new DomainError('INSUFFICIENT_SCOPE', {
      message: `${forbidden} events carry payroll data and need the ${PAYROLL_SCOPE} scope.`,
      requiredScope: PAYROLL_SCOPE,
    });
  }
  const after = decodeCursor(listName(companyId), query.cursor);
  const rows = await ctx.db.$queryRawUnsafe<FeedRow[]>(
    `SELECT id, ${keysetTimestampSql('created_at')} AS created_key, payload
       FROM events
      WHERE company_id = $1::uuid
        AND ($2::text IS NULL OR type = ANY (string_to_array($2::text, ',')))
        AND ${VISIBLE}
        AND ($4::timestamptz IS NULL OR created_at >= $4::timestamptz)
        AND ($5::timestamptz IS NULL OR created_at < $5::timestamptz)
        AND ($6::timestamptz IS NULL OR (created_at, id) > ($6::timestamptz, $7::uuid))
      ORDER BY created_at, id
      LIMIT $8`,
    companyId,
    query.type?.join(',') ?? null,
    hidden,
    query.created_gte ?? null,
    query.created_lt ?? null,
    after?.at ?? null,
    after?.id ?? null,
    query.limit + 1,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  // A feed keeps its place: the cursor after the last event is returned even on the last page
  // (and handed back unchanged on an empty one), so a receiver polls with it for newer events.
  const position = last ? encodeCursor(listName(companyId), { at: last.created_key, id: last.id }) : after ? query.cursor! : null;
  return {
    events: page.map((row) => toEvent(row.payload)),
    pagination: { has_more: rows.length > query.limit, next_cursor: position },
  };
}

export async function getEvent(ctx: OperationContext, companyId: string, eventId: string): Promise<Event> {
  const hidden = hiddenTypes(ctx);
  const rows = await ctx.db.$queryRawUnsafe<FeedRow[]>(
    `SELECT id, payload FROM events
      WHERE id = $1::uuid AND company_id = $2::uuid AND ${VISIBLE}`,
    eventId,
    companyId,
    hidden,
  );
  const row = rows[0];
  if (!row) throw new DomainError('NOT_FOUND', { message: 'No such event.' });
  return toEvent(row.payload);
}

/** Stored payloads were built by emitEvent and checked against the catalogue then; parse to type them. */
const toEvent = (payload: unknown): Event => Event.parse(typeof payload === 'string' ? JSON.parse(payload) : payload);
