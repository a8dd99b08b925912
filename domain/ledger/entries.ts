import { PrismaSql as Prisma } from '../db/client.ts';
import type { OperationContext } from '../context.ts';
import { readRows, requireActor, requireScope, withTransaction } from '../context.ts';
import { DomainError, type ErrorDetail } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimestampSql, type PaginationMeta, type PaginationQuery, keysetPage } from '../kernel/pagination.ts';
import { z } from 'zod';
import type { LineObject } from './dimension-schemas.ts';
import { insertLineObjects, resolveLineObjects } from './line-objects.ts';
import { ENTRY_VISIBLE_SQL, entryVisible } from './visibility.ts';
import { type ENTRY_STATES, JournalEntry, toSqlDate, type JournalEntryCreateBody, type JournalEntryListQuery } from './schemas.ts';
import { BooksDate, booksInstant } from '../kernel/books-dates.ts';

/**
 * One statement reads an entry whole: the row, its lines with account numbers and names, and
 * the reversal pointing at it. Used for get, list and every event payload, so they agree
 * (exported for the benchmarks' raw baselines, which must read the same way). Plain text without
 * parameters of its own: the statements built on it number theirs.
 */
export const ENTRY_SELECT = `
  SELECT e.id, e.company_id, e.series, e.number, e.date::text AS date, e.description, e.status, e.currency,
         e.fiscal_year_id, e.period_id, e.reverses_id, e.source_series, e.source_number, e.committed_at, e.created_at,
         ${keysetTimestampSql('e.created_at')} AS created_key,
         (SELECT r.id FROM journal_entries r WHERE r.company_id = e.company_id AND r.reverses_id = e.id) AS reversed_by_id,
         coalesce((SELECT json_agg(json_build_object(
                     'line', l.line_no, 'account', a.number, 'account_name', a.name,
                     'debit', l.debit, 'credit', l.credit, 'description', l.description,
                     'objects', coalesce((SELECT json_agg(json_build_object('dimension', o.dimension_number, 'object', o.object_code)
                                                          ORDER BY o.dimension_number)
                                            FROM journal_line_objects o
                                           WHERE o.company_id = l.company_id AND o.entry_id = l.entry_id AND o.line_no = l.line_no), '[]'::json))
                     ORDER BY l.line_no)
                     FROM journal_lines l JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
                    WHERE l.company_id = e.company_id AND l.entry_id = e.id), '[]'::json) AS lines
    FROM journal_entries e`;

export interface EntryRow {
  id: string;
  company_id: string;
  series: string;
  number: number | null;
  date: string;
  description: string;
  status: (typeof ENTRY_STATES)[number];
  currency: 'SEK';
  fiscal_year_id: string | null;
  period_id: string | null;
  reverses_id: string | null;
  reversed_by_id: string | null;
  source_series: string | null;
  source_number: string | null;
  committed_at: Date | null;
  created_at: Date;
  created_key: string;
  lines: { line: number; account: string; account_name: string; debit: number; credit: number; description: string | null; objects: LineObject[] }[];
}

/** An entry row in the API's shape, unchecked (the raw benchmark baseline sends it as is). */
export function entryFields(row: EntryRow) {
  return {
    id: row.id,
    company_id: row.company_id,
    series: row.series,
    number: row.number,
    voucher: row.number === null ? null : `${row.series}${row.number}`,
    date: row.date,
    description: row.description,
    status: row.status === 'committed' && row.reversed_by_id ? 'reversed' : row.status,
    currency: row.currency,
    fiscal_year_id: row.fiscal_year_id,
    period_id: row.period_id,
    total: row.lines.reduce((sum, line) => sum + Number(line.debit), 0),
    lines: row.lines.map((line) => ({ ...line, debit: Number(line.debit), credit: Number(line.credit) })),
    reverses_id: row.reverses_id,
    reversed_by_id: row.reversed_by_id,
    source: row.source_series === null ? null : { series: row.source_series, number: row.source_number ?? '' },
    committed_at: row.committed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

function toEntry(row: EntryRow): JournalEntry {
  return JournalEntry.parse(entryFields(row));
}

export const entryNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such journal entry in this company.' });

/** One entry by (company, id): the app's read, and the benchmarks' raw baselines read with it too. */
export const ENTRY_BY_ID = `${ENTRY_SELECT} WHERE e.company_id = $1::uuid AND e.id = $2::uuid AND ${ENTRY_VISIBLE_SQL}`;
const ENTRIES_BY_ID = `${ENTRY_SELECT} WHERE e.company_id = $1::uuid AND e.id = ANY($2::uuid[]) AND ${ENTRY_VISIBLE_SQL}`;

/**
 * The entry as the API shows it, or null. Through the bare driver, inside a transaction or not
 * (on PostgreSQL a GET's is a prepared statement): Prisma's $queryRaw cost the entry read about
 * 40 % of its CPU (bench rest: 0.65 → 1.18 of the raw baseline).
 */
export async function readEntry(ctx: OperationContext, companyId: string, entryId: string): Promise<JournalEntry | null> {
  const [row] = await readRows<EntryRow>(ctx, ENTRY_BY_ID, [companyId, entryId]);
  return row ? toEntry(row) : null;
}

/** Several entries as the API shows them, in the order of `entryIds` (one statement; imports emit with it). */
export async function readEntries(ctx: OperationContext, companyId: string, entryIds: readonly string[]): Promise<JournalEntry[]> {
  if (entryIds.length === 0) return [];
  const rows = await readRows<EntryRow>(ctx, ENTRIES_BY_ID, [companyId, [...entryIds]]);
  const byId = new Map(rows.map((row) => [row.id, toEntry(row)]));
  return entryIds.map((id) => {
    const entry = byId.get(id);
    if (!entry) throw new Error(`readEntries: no entry ${id}`);
    return entry;
  });
}

export async function getJournalEntry(ctx: OperationContext, companyId: string, entryId: string): Promise<JournalEntry> {
  requireScope(ctx, 'companies:read');
  const entry = await readEntry(ctx, companyId, entryId);
  if (!entry) throw entryNotFound();
  return entry;
}

const LIST_NAME = 'journal_entries';
const ListKey = z.object({ date: BooksDate, at: booksInstant({ precision: 6 }), id: z.uuid() });

/** Newest first: (date, created_at, id) descending, a unique order the keyset cursor follows. */
export async function listJournalEntries(
  ctx: OperationContext,
  companyId: string,
  query: JournalEntryListQuery & PaginationQuery,
): Promise<{ entries: JournalEntry[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const conditions: Prisma.Sql[] = [Prisma.sql`e.company_id = ${companyId}::uuid`, entryVisible];
  if (query.date_from) conditions.push(Prisma.sql`e.date >= ${query.date_from}::date`);
  if (query.date_to) conditions.push(Prisma.sql`e.date <= ${query.date_to}::date`);
  if (query.series) conditions.push(Prisma.sql`e.series = ${query.series}`);
  if (query.status === 'draft') conditions.push(Prisma.sql`e.status = 'draft'`);
  const reversed = Prisma.sql`EXISTS (SELECT 1 FROM journal_entries r WHERE r.company_id = e.company_id AND r.reverses_id = e.id)`;
  if (query.status === 'committed') conditions.push(Prisma.sql`e.status = 'committed' AND NOT ${reversed}`);
  if (query.status === 'reversed') conditions.push(Prisma.sql`e.status = 'committed' AND ${reversed}`);
  if (query.account) {
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM journal_lines l JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
                                        WHERE l.company_id = e.company_id AND l.entry_id = e.id AND a.number = ${query.account})`);
  }
  if (after) conditions.push(Prisma.sql`(e.date, e.created_at, e.id) < (${after.date}::date, ${after.at}::timestamptz, ${after.id}::uuid)`);
  const rows = await ctx.db.$queryRaw<EntryRow[]>`
    ${Prisma.raw(ENTRY_SELECT)} WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY e.date DESC, e.created_at DESC, e.id DESC LIMIT ${query.limit + 1}`;
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { date: last.date, at: last.created_key, id: last.id }));
  return { entries: page.map(toEntry), pagination };
}

interface AccountRef {
  id: string;
  number: string;
  active: boolean;
}

/** Resolves each line's account number in one query; unknown or inactive accounts name their lines. */
export async function resolveLineAccounts(
  ctx: OperationContext,
  companyId: string,
  numbers: readonly string[],
  path: (index: number) => string,
): Promise<Map<string, AccountRef>> {
  const rows = await ctx.db.$queryRaw<AccountRef[]>`
    SELECT id, number, active FROM accounts
     WHERE company_id = ${companyId}::uuid AND import_id IS NULL AND number = ANY(${[...new Set(numbers)]}::text[])
       FOR SHARE`;
  const byNumber = new Map(rows.map((row) => [row.number, row]));
  const unknown: ErrorDetail[] = [];
  const inactive: ErrorDetail[] = [];
  numbers.forEach((number, index) => {
    const account = byNumber.get(number);
    if (!account) unknown.push({ path: path(index), message: `Account ${number} is not in the chart of accounts.` });
    else if (!account.active) inactive.push({ path: path(index), message: `Account ${number} is inactive.` });
  });
  if (unknown.length > 0) {
    throw new DomainError('ACCOUNT_UNKNOWN', { message: unknown.map((d) => `${d.path}: ${d.message}`).join('; '), details: unknown });
  }
  if (inactive.length > 0) {
    throw new DomainError('ACCOUNT_INACTIVE', { message: inactive.map((d) => `${d.path}: ${d.message}`).join('; '), details: inactive });
  }
  return byNumber;
}

export interface DraftInput {
  date: string;
  description: string;
  series: string;
  reversesId?: string;
  lines: { account: string; debit: number; credit: number; description: string | null; objects?: readonly LineObject[] }[];
}

/** Inserts a draft and its lines; returns its id. Accounts and objects must exist and be active. */
export async function insertDraft(ctx: OperationContext, companyId: string, input: DraftInput): Promise<string> {
  const accounts = await resolveLineAccounts(
    ctx,
    companyId,
    input.lines.map((line) => line.account),
    (index) => `body.lines.${index}.account`,
  );
  const lineObjects = input.lines.map((line) => line.objects ?? []);
  await resolveLineObjects(ctx, companyId, lineObjects);
  const entry = await ctx.db.journalEntry.create({
    data: {
      companyId,
      date: toSqlDate(input.date),
      description: input.description,
      series: input.series,
      reversesId: input.reversesId ?? null,
      createdByApiKeyId: ctx.actor?.apiKeyId ?? null,
    },
    select: { id: true },
  });
  await ctx.db.journalLine.createMany({
    data: input.lines.map((line, index) => ({
      companyId,
      entryId: entry.id,
      lineNo: index + 1,
      accountId: (accounts.get(line.account) as AccountRef).id,
      debit: BigInt(line.debit),
      credit: BigInt(line.credit),
      description: line.description,
    })),
  });
  await insertLineObjects(ctx, companyId, entry.id, lineObjects);
  return entry.id;
}

export const DEFAULT_SERIES = 'A';

export async function createJournalEntry(ctx: OperationContext, companyId: string, body: JournalEntryCreateBody): Promise<JournalEntry> {
  requireScope(ctx, 'companies:write');
  requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const id = await insertDraft(tx, companyId, {
      date: body.date,
      description: body.description,
      series: body.series ?? DEFAULT_SERIES,
      lines: body.lines.map((line) => ({
        account: line.account,
        debit: line.debit ?? 0,
        credit: line.credit ?? 0,
        description: line.description ?? null,
        objects: line.objects ?? [],
      })),
    });
    const entry = (await readEntry(tx, companyId, id)) as JournalEntry;
    await emitEvent(tx, companyId, 'journal_entry.created', entry, null);
    return entry;
  });
}

/** Deletes a draft (its lines go with it). Committed entries are never deleted: reverse them. */
export async function deleteJournalEntry(ctx: OperationContext, companyId: string, entryId: string): Promise<void> {
  requireScope(ctx, 'companies:write');
  await withTransaction(ctx, async (tx) => {
    const deleted = await tx.db.journalEntry.deleteMany({ where: { companyId, id: entryId, status: 'draft' } });
    if (deleted.count === 1) return;
    const exists = await readEntry(tx, companyId, entryId);
    if (!exists) throw entryNotFound();
    throw new DomainError('ENTRY_NOT_DRAFT', { message: 'This entry is committed; it cannot be deleted. Reverse it instead.' });
  });
}
