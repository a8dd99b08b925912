import type { OperationContext } from '../../context.ts';
import { requireScope, withTransaction } from '../../context.ts';
import { DomainError } from '../../kernel/errors.ts';
import { emitEvent } from '../../events/emit.ts';
import { bookEntry } from '../../ledger/commit.ts';
import { addDays, addMonths, lastDayOfMonth } from '../../ledger/calendar.ts';
import { type FiscalYearRow, insertFiscalYear, toFiscalYear, DEFAULT_FISCAL_YEAR_MONTHS } from '../../ledger/fiscal-years.ts';
import { fromSqlDate } from '../../ledger/schemas.ts';
import { entryVisible } from '../../ledger/visibility.ts';
import type { Job } from '../runner.ts';
import { closeFiscalYearKind } from '../kinds/close-fiscal-year.ts';

/** Closing entries get their own voucher series, apart from the year's ordinary verifications. */
export const CLOSING_SERIES = 'Y';
/** BAS: the year's result is booked from 8999 (result accounts) to 2099 (equity). */
export const RESULT_ACCOUNT = '8999';
export const EQUITY_RESULT_ACCOUNT = '2099';

export interface ClosePlan {
  fiscalYearId: string;
  startDate: string;
  endDate: string;
  /** Profit (positive) or loss (negative) in öre: the credit balance of classes 3-8. */
  result: number;
}

/**
 * Every check closing makes, as the queue call and the job both run it: the year exists and is
 * open, every period is locked, and the year's committed lines balance. Returns what closing books.
 */
export async function planClose(ctx: OperationContext, companyId: string, fiscalYearId: string): Promise<ClosePlan> {
  requireScope(ctx, closeFiscalYearKind.scope);
  const [year] = await ctx.db.$queryRaw<{ start_date: Date; end_date: Date; closed_at: Date | null }[]>`
    SELECT start_date, end_date, closed_at FROM fiscal_years WHERE company_id = ${companyId}::uuid AND id = ${fiscalYearId}::uuid AND import_id IS NULL FOR UPDATE`;
  if (!year) throw new DomainError('NOT_FOUND', { message: 'No such fiscal year in this company.' });
  if (year.closed_at) throw new DomainError('FISCAL_YEAR_CLOSED', { message: `This fiscal year was closed at ${year.closed_at.toISOString()}.` });
  const open = await ctx.db.$queryRaw<{ start_date: string }[]>`
    SELECT start_date::text AS start_date FROM periods
     WHERE company_id = ${companyId}::uuid AND fiscal_year_id = ${fiscalYearId}::uuid AND locked_at IS NULL ORDER BY start_date`;
  if (open.length > 0) {
    throw new DomainError('PERIODS_NOT_LOCKED', {
      message: `Lock every period before closing the year; open: ${open.map((p) => p.start_date.slice(0, 7)).join(', ')}.`,
      details: open.map((p) => ({ path: `period ${p.start_date.slice(0, 7)}`, message: 'open' })),
    });
  }
  // Aggregated in SQL: one pass over the year's committed lines.
  const [sums] = await ctx.db.$queryRaw<{ debit: bigint; credit: bigint; result: bigint }[]>`
    SELECT coalesce(sum(l.debit), 0)::bigint AS debit, coalesce(sum(l.credit), 0)::bigint AS credit,
           coalesce(sum(l.credit - l.debit) FILTER (WHERE a.number >= '3000'), 0)::bigint AS result
      FROM journal_lines l
      JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
      JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
     WHERE l.company_id = ${companyId}::uuid AND e.status = 'committed' AND ${entryVisible} AND e.fiscal_year_id = ${fiscalYearId}::uuid`;
  if (!sums || sums.debit !== sums.credit) {
    throw new DomainError('ENTRY_UNBALANCED', { message: `The year does not balance: debits ${sums?.debit} öre, credits ${sums?.credit} öre.` });
  }
  return { fiscalYearId, startDate: fromSqlDate(year.start_date), endDate: fromSqlDate(year.end_date), result: Number(sums.result) };
}

/**
 * Closes a fiscal year in one transaction, so a rerun after a crash either finds it closed (and
 * reports what was booked) or starts over: books the result from 8999 to 2099 on the last day,
 * marks the year closed, and opens the next year if it does not exist. Balance-sheet accounts
 * (classes 1-2) carry over by themselves: their opening balance is everything booked before.
 */
export async function closeFiscalYearNow(ctx: OperationContext, companyId: string, fiscalYearId: string): Promise<Record<string, unknown>> {
  return withTransaction(ctx, async (tx) => {
    const plan = await planClose(tx, companyId, fiscalYearId);
    const profit = plan.result;
    const closing =
      profit === 0
        ? null
        : await bookEntry(
            tx,
            companyId,
            {
              date: plan.endDate,
              description: `Årets resultat ${plan.startDate.slice(0, 4)}${plan.startDate.slice(0, 4) === plan.endDate.slice(0, 4) ? '' : `/${plan.endDate.slice(0, 4)}`}`,
              series: CLOSING_SERIES,
              lines: [
                { account: RESULT_ACCOUNT, debit: Math.max(profit, 0), credit: Math.max(-profit, 0), description: 'Årets resultat' },
                { account: EQUITY_RESULT_ACCOUNT, debit: Math.max(-profit, 0), credit: Math.max(profit, 0), description: 'Årets resultat' },
              ],
            },
            { allowLockedPeriod: true },
          );
    const closedYear = toFiscalYear(await tx.db.fiscalYear.update({ where: { id: fiscalYearId }, data: { closedAt: tx.services.now() } }));
    const nextStart = addDays(plan.endDate, 1);
    let next: FiscalYearRow | null = await tx.db.fiscalYear.findFirst({ where: { companyId, startDate: new Date(`${nextStart}T00:00:00.000Z`) } });
    next ??= await insertFiscalYear(tx.db, companyId, nextStart, lastDayOfMonth(addMonths(nextStart, DEFAULT_FISCAL_YEAR_MONTHS - 1)));
    await emitEvent(tx, companyId, 'fiscal_year.closed', closedYear, { status: 'open', closed_at: null });
    return {
      fiscal_year_id: fiscalYearId,
      result: profit,
      closing_entry_id: closing?.id ?? null,
      voucher: closing?.voucher ?? null,
      next_fiscal_year_id: next.id,
    };
  });
}

export async function closeFiscalYearJob(job: Job): Promise<Record<string, unknown>> {
  const fiscalYearId = String(job.input.fiscal_year_id);
  return withTransaction(job.ctx, async (tx) => {
    const result = await closeFiscalYearNow(tx, job.companyId, fiscalYearId);
    await job.checkpointIn(tx, 100, 'Closed');
    return result;
  });
}
