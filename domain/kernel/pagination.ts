import { z } from 'zod';
import { FIRST_BOOKS_YEAR, LAST_BOOKS_YEAR } from './books-dates.ts';

/** `?limit=` bounds for cursor lists (DESIGN.md §6). */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

const CURSOR_VERSION = 1;
/** Our cursors are about 120 characters; anything far longer is not one of ours and restarts the list. */
const MAX_CURSOR_LENGTH = 512;
/** base64url, as encodeCursor writes it. */
const CURSOR_CHARS = /^[A-Za-z0-9_-]*$/;

export const PaginationQuery = z.object({
  // A cursor is never refused (spec Errors 4): one too long to be ours, or holding text no cursor
  // of ours has, is dropped here, and the list restarts at page one like any other stale cursor.
  cursor: z
    .string()
    .optional()
    .transform((cursor) => (cursor === undefined || cursor.length > MAX_CURSOR_LENGTH || !CURSOR_CHARS.test(cursor) ? undefined : cursor))
    .describe('Opaque cursor from meta.pagination.next_cursor of the previous page; omit for the first page.'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).describe(`Page size, 1-${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`),
});
export type PaginationQuery = z.infer<typeof PaginationQuery>;

export const PaginationMeta = z.object({
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
});
export type PaginationMeta = z.infer<typeof PaginationMeta>;

/** A keyset position: the sort key as the database printed it (full microsecond precision) and the tiebreaking id. */
export interface KeysetPosition {
  at: string;
  id: string;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?Z$/;

/** A UTC instant that really exists (no month 13, no 30 February, no 25:00) in the books' years, as PostgreSQL will read it. */
export function isRealInstant(text: string): boolean {
  const match = INSTANT.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (year < FIRST_BOOKS_YEAR || year > LAST_BOOKS_YEAR || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  return day >= 1 && day <= lastDay.getUTCDate();
}

const CursorPayload = z.object({
  v: z.literal(CURSOR_VERSION),
  l: z.string(),
  at: z.string().refine(isRealInstant),
  id: z.uuid(),
});

export function encodeCursor(list: string, position: KeysetPosition): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, l: list, at: position.at, id: position.id })).toString('base64url');
}

/**
 * Decodes a cursor issued for `list`. A malformed cursor, one from another list or an older
 * format is stale: the caller restarts at page one instead of failing (spec Errors 4).
 */
export function decodeCursor(list: string, cursor: string | undefined): KeysetPosition | null {
  if (!cursor) return null;
  try {
    const parsed = CursorPayload.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (!parsed.success || parsed.data.l !== list) return null;
    return { at: parsed.data.at, id: parsed.data.id };
  } catch {
    return null;
  }
}

/** SQL expression printing a timestamptz with all six fractional digits, in UTC. */
export const keysetTimestampSql = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A cursor over any keyset (e.g. date, created_at, id): the list name plus the sort key's values,
 * validated by the list's own schema on the way back in. Anything that fails — wrong list,
 * impossible values, garbage — is stale and restarts at page one (spec Errors 4).
 */
export function encodeKeysetCursor(list: string, key: Readonly<Record<string, string | number>>): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, l: list, k: key })).toString('base64url');
}

export function decodeKeysetCursor<S extends z.ZodType>(list: string, cursor: string | undefined, key: S): z.infer<S> | null {
  if (!cursor) return null;
  try {
    const parsed = z
      .object({ v: z.literal(CURSOR_VERSION), l: z.literal(list), k: key })
      .safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    // The generic object type hides `k`; the schema above just checked it.
    return parsed.success ? (parsed.data as { k: z.infer<S> }).k : null;
  } catch {
    return null;
  }
}

/**
 * One page of a keyset list read with `limit + 1` rows: the page, and whether (and from where)
 * the next one starts. The extra row only says there is more; it is never returned.
 */
export function keysetPage<R>(rows: readonly R[], limit: number, cursorOf: (last: R) => string): { page: R[]; pagination: PaginationMeta } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return { page, pagination: { has_more: hasMore, next_cursor: hasMore ? cursorOf(last) : null } };
}

const StaticKey = z.object({ id: z.string().min(1) });

/**
 * One page of a list held in memory in a fixed order (the event-type catalogue): the cursor names
 * the last row's id, and the next page starts after it. An id no longer in the list is stale and
 * restarts at page one (spec Errors 4).
 */
export function staticPage<R>(list: string, rows: readonly R[], query: PaginationQuery, idOf: (row: R) => string): { page: R[]; pagination: PaginationMeta } {
  const after = decodeKeysetCursor(list, query.cursor, StaticKey);
  const start = after === null ? 0 : rows.findIndex((row) => idOf(row) === after.id) + 1;
  return keysetPage(rows.slice(start, start + query.limit + 1), query.limit, (last) => encodeKeysetCursor(list, { id: idOf(last) }));
}
