import type { OperationContext } from '../context.ts';
import { readRows, requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { z } from 'zod';
import { BooksDate } from '../kernel/books-dates.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta } from '../kernel/pagination.ts';
import { type Period, fromSqlDate, type PeriodListQuery, toSqlDate } from './schemas.ts';

interface PeriodRow {
  id: string;
  companyId: string;
  fiscalYearId: string;
  startDate: Date;
  endDate: Date;
  lockedAt: Date | null;
}

export const toPeriod = (row: PeriodRow): Period => ({
  id: row.id,
  company_id: row.companyId,
  fiscal_year_id: row.fiscalYearId,
  start_date: fromSqlDate(row.startDate),
  end_date: fromSqlDate(row.endDate),
  status: row.lockedAt ? 'locked' : 'open',
  locked_at: row.lockedAt?.toISOString() ?? null,
});

const periodNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such period in this company.' });

const LIST_NAME = 'periods';
const ListKey = z.object({ start: BooksDate });

/** Periods in date order, a page at a time (keyset on the start date, unique per company). */
export async function listPeriods(
  ctx: OperationContext,
  companyId: string,
  query: PeriodListQuery,
): Promise<{ periods: Period[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = await ctx.db.period.findMany({
    where: {
      companyId,
      fiscalYear: { importId: null },
      ...(query.fiscal_year_id && { fiscalYearId: query.fiscal_year_id }),
      ...(query.status && { lockedAt: query.status === 'locked' ? { not: null } : null }),
      ...(query.from && { endDate: { gte: toSqlDate(query.from) } }),
      AND: [...(query.to ? [{ startDate: { lte: toSqlDate(query.to) } }] : []), ...(after ? [{ startDate: { gt: toSqlDate(after.start) } }] : [])],
    },
    orderBy: { startDate: 'asc' },
    take: query.limit + 1,
  });
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { start: fromSqlDate(last.startDate) }));
  return { periods: page.map(toPeriod), pagination };
}

interface LockedRow extends PeriodRow {
  closedAt: Date | null;
}

/** The period and its year's closing state, locked for the rest of the transaction. */
async function lockRow(ctx: OperationContext, companyId: string, periodId: string): Promise<LockedRow> {
  const [row] = await ctx.db.$queryRaw<LockedRow[]>`
    SELECT p.id, p.company_id AS "companyId", p.fiscal_year_id AS "fiscalYearId", p.start_date AS "startDate",
           p.end_date AS "endDate", p.locked_at AS "lockedAt", y.closed_at AS "closedAt"
      FROM periods p JOIN fiscal_years y ON y.company_id = p.company_id AND y.id = p.fiscal_year_id
     WHERE p.company_id = ${companyId}::uuid AND p.id = ${periodId}::uuid AND y.import_id IS NULL
       FOR UPDATE OF p`;
  if (!row) throw periodNotFound();
  return row;
}

/** Locks a period against commits. Locking a locked period changes nothing and emits nothing. */
export async function lockPeriod(ctx: OperationContext, companyId: string, periodId: string): Promise<Period> {
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    const row = await lockRow(tx, companyId, periodId);
    if (row.lockedAt) return toPeriod(row);
    const period = toPeriod(await tx.db.period.update({ where: { id: row.id }, data: { lockedAt: tx.services.now() } }));
    await emitEvent(tx, companyId, 'period.locked', period, null);
    return period;
  });
}

/** Reopens a period, unless its fiscal year is closed (a closed year never reopens). */
export async function unlockPeriod(ctx: OperationContext, companyId: string, periodId: string): Promise<Period> {
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    const row = await lockRow(tx, companyId, periodId);
    if (row.closedAt) {
      throw new DomainError('FISCAL_YEAR_CLOSED', {
        message: `The fiscal year of this period was closed at ${row.closedAt.toISOString()}; its periods stay locked.`,
      });
    }
    if (!row.lockedAt) return toPeriod(row);
    const period = toPeriod(await tx.db.period.update({ where: { id: row.id }, data: { lockedAt: null } }));
    await emitEvent(tx, companyId, 'period.unlocked', period, null);
    return period;
  });
}

export const PERIOD_FOR_DATE = `
  SELECT p.id, p.fiscal_year_id AS "fiscalYearId", p.locked_at AS "lockedAt", y.closed_at AS "closedAt",
         EXISTS (SELECT 1 FROM pending_imports pi
                  WHERE pi.company_id = p.company_id AND p.fiscal_year_id IN (pi.fiscal_year_id, pi.opening_fiscal_year_id)) AS importing
    FROM periods p JOIN fiscal_years y ON y.company_id = p.company_id AND y.id = p.fiscal_year_id
   WHERE p.company_id = $1::uuid AND p.start_date <= $2::date AND p.end_date >= $2::date AND y.import_id IS NULL
     FOR SHARE OF p`;

/**
 * Where a date is booked: its fiscal year and period, share-locked so a concurrent lockPeriod
 * waits for this commit (or this commit waits for the lock and then sees it). Through the bare
 * driver: every commit asks it inside its transaction.
 */
export async function periodForDate(
  ctx: OperationContext,
  companyId: string,
  isoDate: string,
): Promise<{ periodId: string; fiscalYearId: string; locked: boolean; importing: boolean; yearClosed: boolean } | null> {
  const [row] = await readRows<{ id: string; fiscalYearId: string; lockedAt: Date | null; closedAt: Date | null; importing: boolean }>(ctx, PERIOD_FOR_DATE, [
    companyId,
    isoDate,
  ]);
  if (!row) return null;
  // While an SIE import books into the year, the year's numbers are the import's: other commits
  // wait as for a locked period, so a cancelled import leaves no gap behind them (docs/sie.md).
  return { periodId: row.id, fiscalYearId: row.fiscalYearId, locked: row.lockedAt !== null, importing: row.importing, yearClosed: row.closedAt !== null };
}
