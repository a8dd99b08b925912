import { timingSafeEqual } from 'node:crypto';
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
/**
 * The ledger key the commit wrote onto each line (migration 20261129500000_general_ledger_key),
 * in the order of the index journal_lines_ledger_order after (company_id, fiscal_year_id): a
 * page is one index range scan from the cursor, whatever page it is, with no sort.
 */
const ROW_KEY = Prisma.sql`(l.account_number, l.entry_date, l.series, l.entry_number, l.entry_id, l.line_no)`;

/** One keyset page of ledger lines strictly after `after`, in the ledger's total order. */
export const ledgerPage = (
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  accounts: AccountFilter,
  after: LedgerKey | null,
  limit: number,
  filter: ObjectFilter | null = null,
): Promise<LedgerRow[]> => ctx.db.$queryRaw<LedgerRow[]>(ledgerPageSql(companyId, period, accounts, after, limit, filter));

/** The SQL of ledgerPage (a test EXPLAINs it). */
export function ledgerPageSql(
  companyId: string,
  period: ReportPeriod,
  accounts: AccountFilter,
  after: LedgerKey | null,
  limit: number,
  filter: ObjectFilter | null,
): Prisma.Sql {
  // A draft's lines carry no fiscal year, so naming the period's year reads committed lines only.
  const conditions: Prisma.Sql[] = [
    Prisma.sql`l.company_id = ${companyId}::uuid`,
    Prisma.sql`l.fiscal_year_id = ${period.fiscal_year.id}::uuid`,
    Prisma.sql`l.entry_date >= ${period.from}::date`,
    Prisma.sql`l.entry_date <= ${period.to}::date`,
    entryVisible,
  ];
  if (accounts.from) conditions.push(Prisma.sql`l.account_number >= ${accounts.from}`);
  if (accounts.to) conditions.push(Prisma.sql`l.account_number <= ${accounts.to}`);
  if (after) conditions.push(Prisma.sql`${ROW_KEY} > ${keySql(after)}`);
  return Prisma.sql`
    SELECT l.account_number AS account, a.name AS account_name, l.entry_date::text AS date, l.series, l.entry_number AS number,
           l.entry_id, l.line_no, coalesce(l.description, e.description) AS description, l.debit, l.credit
      FROM journal_lines l
      JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
      JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
     WHERE ${Prisma.join(conditions, ' AND ')} ${carriesObject(filter)}
     ORDER BY l.account_number, l.entry_date, l.series, l.entry_number, l.entry_id, l.line_no
     LIMIT ${limit}`;
}

/**
 * Debit minus credit per account before the period: every earlier line for classes 1-2, the
 * fiscal year's earlier lines for classes 3-8 (the same rule as the account balances).
 * Aggregated in SQL over the ledger index, one range per fiscal year that began by `from`.
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
    SELECT l.account_number AS account, coalesce(sum(l.debit - l.credit), 0)::bigint AS amount
      FROM journal_lines l
     WHERE l.company_id = ${companyId}::uuid
       AND l.fiscal_year_id = ANY(ARRAY(SELECT id FROM fiscal_years WHERE company_id = ${companyId}::uuid AND start_date <= ${period.from}::date AND import_id IS NULL))
       AND NOT EXISTS (SELECT 1 FROM pending_imports pi JOIN journal_entries e ON e.company_id = pi.company_id AND e.import_id = pi.operation_id
                        WHERE pi.company_id = l.company_id AND e.id = l.entry_id)
       AND l.account_number = ANY(${[...accounts]}::text[]) AND l.entry_date < ${period.from}::date
       AND (l.account_number < '3' OR l.fiscal_year_id = ${period.fiscal_year.id}::uuid) ${carriesObject(filter)}
     GROUP BY l.account_number`;
  return new Map(rows.map((row) => [row.account, row.amount]));
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
  /** The running balance of `account` after this line, öre as a decimal string. */
  balance: z.string().regex(/^-?\d{1,20}$/),
  /** Keyed digest over the read's scope, the position and the balance (sealOf). */
  seal: z.string().regex(/^[0-9a-f]{32}$/),
});
type CursorKey = z.infer<typeof CursorKey>;

/**
 * The cursor's seal: a keyed digest (the service's secret box) of the company, period, account
 * and object filters, the position and the balance carried. A cursor a caller altered, or one
 * from another company, range or filter, fails it and the list restarts at page one like any
 * stale cursor (spec Errors 4) — so a carried balance is one this service computed for this read.
 */
function sealOf(
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  accounts: AccountFilter,
  filter: ObjectFilter | null,
  key: LedgerKey,
  balance: string,
): string {
  const scope = [
    companyId,
    period.fiscal_year.id,
    period.from,
    period.to,
    accounts.from ?? null,
    accounts.to ?? null,
    filter?.dimension ?? null,
    filter?.object ?? null,
  ];
  const position = [key.account, key.date, key.series, key.number, key.entry, key.line, balance];
  return ctx.services.secretBox.digest('general-ledger-cursor', JSON.stringify([...scope, ...position])).slice(0, 32);
}

/**
 * One page of the general ledger as a cursor list. The running balance continues from the
 * balance the previous page ended on, carried in the (sealed) cursor; an account that starts on
 * this page starts from its opening balance. So no page sums the lines before it, and page 500
 * costs what page 1 costs. Between two pages a caller reads the ledger as of its first page:
 * a line committed meanwhile before the cursor (a backdated entry) is neither shown nor counted,
 * and the balances continue exactly from the lines the caller has seen.
 */
export async function generalLedgerPage(
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  query: GeneralLedgerQuery,
  filter: ObjectFilter | null = null,
): Promise<{ lines: GeneralLedgerLine[]; pagination: PaginationMeta }> {
  const accounts = accountFilterOf(query);
  const decoded = decodeKeysetCursor(LIST_NAME, query.cursor, CursorKey);
  const after = decoded && sealed(ctx, companyId, period, accounts, filter, decoded) ? decoded : null;
  const rows = await ledgerPage(ctx, companyId, period, accounts, after, query.limit + 1, filter);
  const page = rows.slice(0, query.limit);
  const carried = after && page[0]?.account === after.account ? after.account : null;
  const starting = [...new Set(page.map((row) => row.account))].filter((number) => number !== carried);
  const balances = await openingBalances(ctx, companyId, period, starting, filter);
  if (after && carried !== null) balances.set(carried, BigInt(after.balance));
  const lines = page.map((row) => {
    const balance = (balances.get(row.account) ?? 0n) + row.debit - row.credit;
    balances.set(row.account, balance);
    return toLedgerLine(row, balance);
  });
  const { pagination } = keysetPage(rows, query.limit, (last) => {
    const balance = String(balances.get(last.account) ?? 0n);
    const key = keyOfRow(last);
    return encodeKeysetCursor(LIST_NAME, { ...key, balance, seal: sealOf(ctx, companyId, period, accounts, filter, key, balance) });
  });
  return { lines, pagination };
}

function sealed(ctx: OperationContext, companyId: string, period: ReportPeriod, accounts: AccountFilter, filter: ObjectFilter | null, key: CursorKey): boolean {
  const expected = Buffer.from(sealOf(ctx, companyId, period, accounts, filter, key, key.balance));
  const given = Buffer.from(key.seal);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
