import type { OperationContext } from '../context.ts';
import type { ReportPeriod } from './schemas.ts';
import { carriesObject, type ObjectFilter } from './object-filter.ts';
import { entryVisible } from '../ledger/visibility.ts';

/** Per account, in öre: the exact sums as SQL computed them (bigint, never floats). */
export interface BalanceRow {
  account: string;
  name: string;
  opening: bigint;
  debit: bigint;
  credit: bigint;
}

export const closingOf = (row: BalanceRow): bigint => row.opening + row.debit - row.credit;

/** Balance-sheet accounts (classes 1-2) carry their balance across years; result accounts (3-8) restart each year. */
export const isBalanceSheetAccount = (account: string): boolean => account < '3';

/**
 * Every account's opening balance, period debit and period credit, aggregated in SQL: one
 * GROUP BY over the committed lines up to `to`, so no line row enters the process and the sums
 * are PostgreSQL's exact bigint arithmetic. (The report tests compare each total with a single
 * SUM over the same lines, on both engines.)
 *
 * Opening balances: classes 1-2 sum every earlier committed line — the previous years' closing
 * balances plus this year's lines before `from`, which stays right whether or not a year-end
 * closing has been booked; classes 3-8 sum only this fiscal year's lines before `from`.
 */
export async function accountBalances(
  ctx: OperationContext,
  companyId: string,
  period: ReportPeriod,
  filter: ObjectFilter | null = null,
): Promise<BalanceRow[]> {
  const { from, to } = period;
  const yearStart = period.fiscal_year.start_date;
  return ctx.db.$queryRaw<BalanceRow[]>`
    SELECT a.number AS account, a.name,
           CASE WHEN a.number < '3' THEN s.opening_all ELSE s.opening_year END AS opening,
           s.debit, s.credit
      FROM (SELECT l.account_id,
                   coalesce(sum(l.debit - l.credit) FILTER (WHERE e.date < ${from}::date), 0)::bigint AS opening_all,
                   coalesce(sum(l.debit - l.credit) FILTER (WHERE e.date >= ${yearStart}::date AND e.date < ${from}::date), 0)::bigint AS opening_year,
                   coalesce(sum(l.debit) FILTER (WHERE e.date >= ${from}::date), 0)::bigint AS debit,
                   coalesce(sum(l.credit) FILTER (WHERE e.date >= ${from}::date), 0)::bigint AS credit
              FROM journal_lines l
              JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
             WHERE l.company_id = ${companyId}::uuid AND e.status = 'committed' AND ${entryVisible} AND e.date <= ${to}::date ${carriesObject(filter)}
             GROUP BY l.account_id) s
      JOIN accounts a ON a.company_id = ${companyId}::uuid AND a.id = s.account_id
     WHERE (CASE WHEN a.number < '3' THEN s.opening_all ELSE s.opening_year END) <> 0 OR s.debit <> 0 OR s.credit <> 0
     ORDER BY a.number`;
}

/**
 * Debit minus credit of the result accounts (classes 3-8) before the fiscal year began: the
 * earlier years' results that no year-end closing has moved to equity yet (0 once they have).
 * Aggregated in SQL like the balances.
 */
export async function resultBeforeYear(ctx: OperationContext, companyId: string, period: ReportPeriod, filter: ObjectFilter | null = null): Promise<bigint> {
  const [row] = await ctx.db.$queryRaw<{ amount: bigint }[]>`
    SELECT coalesce(sum(l.debit - l.credit), 0)::bigint AS amount
      FROM journal_lines l
      JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
      JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
     WHERE l.company_id = ${companyId}::uuid AND e.status = 'committed' AND ${entryVisible}
       AND e.date < ${period.fiscal_year.start_date}::date AND a.number >= '3' ${carriesObject(filter)}`;
  return row?.amount ?? 0n;
}
