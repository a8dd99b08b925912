import { z } from 'zod';
import { PrismaSql as Prisma } from '../db/client.ts';
import type { OperationContext } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { decodeKeysetCursor, encodeKeysetCursor, type PaginationMeta, keysetPage } from '../kernel/pagination.ts';
import { carriesObject, type ObjectFilter } from './object-filter.ts';
import { entryVisible } from '../ledger/visibility.ts';
import { toOre, type GeneralLedgerLine, type GeneralLedgerQuery, type ReportPeriod } from './schemas.ts';
import { ACCOUNT_NUMBER_PATTERN } from '../ledger/schemas.ts';
import { BooksDate } from '../kernel/books-dates.ts';

/**
 * Huvudbok: every committed line of the period, by account, then date, voucher (series, number),
 * entry id and line number. That tuple is unique (an entry's lines are numbered), so a keyset on
 * it neither repeats nor skips a line however many share an account and a date.
 */

export interface LedgerKey {
  account: string;
  date: string;
  series: string;
  number: number;
  entry: string;
  line: number;
}

export interface LedgerRow {
  account: string;
  account_name: string;
  date: string;
  series: string;
  number: number;
  entry_id: string;
  line_no: number;
  description: string;
  debit: bigint;
  credit: bigint;
}

export const keyOfRow = (row: LedgerRow): LedgerKey => ({
  account: row.account,
  date: row.date,
  series: row.series,
  number: row.number,
  entry: row.entry_id,
  line: row.line_no,
});

/** Account numbers a ledger read covers, inclusive; both ends optional. */
export interface AccountFilter {
  from?: string | undefined;
  to?: string | undefined;
}

const keySql = (key: LedgerKey): Prisma.Sql =>
  Prisma.sql`(${key.account}, ${key.date}::date, ${key.series}, ${key.number}::int, ${key.entry}::uuid, ${key.line}::int)`;
const ROW_KEY = Prisma.sql`(a.number, e.date, e.series, e.number, e.id, l.line_no)`;

/** One keyset page of ledger lines strictly after `after`, in the ledger's total order. */
export async function ledgerPage(
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  accounts: AccountFilter,
  after: LedgerKey | null,
  limit: number,
  filter: ObjectFilter | null = null,
): Promise<LedgerRow[]> {
  const conditions: Prisma.Sql[] = [
    Prisma.sql`l.company_id = ${companyId}::uuid`,
    Prisma.sql`e.status = 'committed' AND ${entryVisible}`,
    Prisma.sql`e.date >= ${period.from}::date`,
    Prisma.sql`e.date <= ${period.to}::date`,
  ];
  if (accounts.from) conditions.push(Prisma.sql`a.number >= ${accounts.from}`);
  if (accounts.to) conditions.push(Prisma.sql`a.number <= ${accounts.to}`);
  if (after) conditions.push(Prisma.sql`${ROW_KEY} > ${keySql(after)}`);
  return ctx.db.$queryRaw<LedgerRow[]>`
    SELECT a.number AS account, a.name AS account_name, e.date::text AS date, e.series, e.number, e.id AS entry_id, l.line_no,
           coalesce(l.description, e.description) AS description, l.debit, l.credit
      FROM journal_lines l
      JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
      JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
     WHERE ${Prisma.join(conditions, ' AND ')} ${carriesObject(filter)}
     ORDER BY a.number, e.date, e.series, e.number, e.id, l.line_no
     LIMIT ${limit}`;
}

/**
 * Debit minus credit per account before the period: every earlier line for classes 1-2, the
 * fiscal year's earlier lines for classes 3-8 (the same rule as the account balances).
 * Aggregated in SQL.
 */
export async function openingBalances(
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  accounts: readonly string[],
  filter: ObjectFilter | null = null,
): Promise<Map<string, bigint>> {
  if (accounts.length === 0) return new Map();
  const rows = await ctx.db.$queryRaw<{ account: string; amount: bigint }[]>`
    SELECT a.number AS account, coalesce(sum(l.debit - l.credit), 0)::bigint AS amount
      FROM journal_lines l
      JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
      JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
     WHERE l.company_id = ${companyId}::uuid AND e.status = 'committed' AND ${entryVisible} AND a.number = ANY(${[...accounts]}::text[])
       AND e.date < ${period.from}::date AND (a.number < '3' OR e.date >= ${period.fiscal_year.start_date}::date) ${carriesObject(filter)}
     GROUP BY a.number`;
  return new Map(rows.map((row) => [row.account, row.amount]));
}

/** Debit minus credit of one account's lines in the period up to and including `key` (SQL SUM). */
async function movementThrough(ctx: OperationContext, companyId: string, period: ReportPeriod, key: LedgerKey, filter: ObjectFilter | null): Promise<bigint> {
  const [row] = await ctx.db.$queryRaw<{ amount: bigint }[]>`
    SELECT coalesce(sum(l.debit - l.credit), 0)::bigint AS amount
      FROM journal_lines l
      JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
      JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
     WHERE l.company_id = ${companyId}::uuid AND e.status = 'committed' AND ${entryVisible} AND a.number = ${key.account}
       AND e.date >= ${period.from}::date AND ${ROW_KEY} <= ${keySql(key)} ${carriesObject(filter)}`;
  return row?.amount ?? 0n;
}

export const toLedgerLine = (row: LedgerRow, balance: bigint): GeneralLedgerLine => ({
  account: row.account,
  account_name: row.account_name,
  date: row.date,
  voucher: `${row.series}${row.number}`,
  entry_id: row.entry_id,
  line: row.line_no,
  description: row.description,
  debit: toOre(row.debit),
  credit: toOre(row.credit),
  balance: toOre(balance),
});

export function accountFilterOf(query: Pick<GeneralLedgerQuery, 'account' | 'account_from' | 'account_to'>): AccountFilter {
  if (query.account !== undefined) {
    if (query.account_from !== undefined || query.account_to !== undefined) {
      const path = query.account_from !== undefined ? 'query.account_from' : 'query.account_to';
      const message = 'Give either account or account_from/account_to, not both.';
      throw new DomainError('VALIDATION_ERROR', { message: `${path}: ${message}`, details: [{ path, message }] });
    }
    return { from: query.account, to: query.account };
  }
  if (query.account_from !== undefined && query.account_to !== undefined && query.account_from > query.account_to) {
    const message = `account_to (${query.account_to}) is below account_from (${query.account_from}).`;
    throw new DomainError('VALIDATION_ERROR', { message: `query.account_to: ${message}`, details: [{ path: 'query.account_to', message }] });
  }
  return { from: query.account_from, to: query.account_to };
}

const LIST_NAME = 'general_ledger';
const CursorKey = z.object({
  account: z.string().regex(ACCOUNT_NUMBER_PATTERN),
  date: BooksDate,
  series: z.string().regex(/^[A-Z]{1,4}$/),
  number: z.number().int().positive(),
  entry: z.uuid(),
  line: z.number().int().positive(),
});

/**
 * One page of the general ledger as a cursor list. The running balance of the page's first
 * account continues exactly from the line before the cursor: its opening balance plus an SQL SUM
 * of its lines up to the cursor — not a sum carried in the cursor, which a caller could alter.
 */
export async function generalLedgerPage(
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  query: GeneralLedgerQuery,
  filter: ObjectFilter | null = null,
): Promise<{ lines: GeneralLedgerLine[]; pagination: PaginationMeta }> {
  const accounts = accountFilterOf(query);
  // A cursor from another range or account filter is stale: restart at page one (spec Errors 4).
  const decoded = decodeKeysetCursor(LIST_NAME, query.cursor, CursorKey);
  const after = decoded && withinFilter(decoded, period, accounts) ? decoded : null;
  const rows = await ledgerPage(ctx, companyId, period, accounts, after, query.limit + 1, filter);
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { ...keyOfRow(last) }));
  const numbers = [...new Set(page.map((row) => row.account))];
  const openings = await openingBalances(ctx, companyId, period, numbers, filter);
  const balances = new Map(numbers.map((number) => [number, openings.get(number) ?? 0n]));
  if (after && page[0]?.account === after.account) {
    balances.set(after.account, (balances.get(after.account) ?? 0n) + (await movementThrough(ctx, companyId, period, after, filter)));
  }
  const lines = page.map((row) => {
    const balance = (balances.get(row.account) ?? 0n) + row.debit - row.credit;
    balances.set(row.account, balance);
    return toLedgerLine(row, balance);
  });
  return { lines, pagination };
}

const withinFilter = (key: LedgerKey, period: ReportPeriod, accounts: AccountFilter): boolean =>
  key.date >= period.from &&
  key.date <= period.to &&
  (accounts.from === undefined || key.account >= accounts.from) &&
  (accounts.to === undefined || key.account <= accounts.to);
