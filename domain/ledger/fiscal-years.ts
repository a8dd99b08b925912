import type { Db } from '../db/client.ts';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { addDays, addMonths, isFirstOfMonth, isLastOfMonth, lastDayOfMonth, monthsSpanned } from './calendar.ts';
import { z } from 'zod';
import { BooksDate } from '../kernel/books-dates.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta } from '../kernel/pagination.ts';
import { type FiscalYear, type FiscalYearListQuery, fromSqlDate, toSqlDate, type FiscalYearCreateBody } from './schemas.ts';

/** Bokföringslagen 3 kap.: a fiscal year is normally 12 months, at most 18 when changed. */
export const MIN_FISCAL_YEAR_MONTHS = 1;
export const MAX_FISCAL_YEAR_MONTHS = 18;
export const DEFAULT_FISCAL_YEAR_MONTHS = 12;

export interface FiscalYearRow {
  id: string;
  companyId: string;
  startDate: Date;
  endDate: Date;
  closedAt: Date | null;
  createdAt: Date;
}

export const toFiscalYear = (row: FiscalYearRow): FiscalYear => ({
  id: row.id,
  company_id: row.companyId,
  start_date: fromSqlDate(row.startDate),
  end_date: fromSqlDate(row.endDate),
  status: row.closedAt ? 'closed' : 'open',
  closed_at: row.closedAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

const LIST_NAME = 'fiscal_years';
const ListKey = z.object({ start: BooksDate });

/** Fiscal years in date order, a page at a time (keyset on the start date, unique per company). */
export async function listFiscalYears(
  ctx: OperationContext,
  companyId: string,
  query: FiscalYearListQuery,
): Promise<{ fiscal_years: FiscalYear[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = await ctx.db.fiscalYear.findMany({
    where: {
      companyId,
      importId: null,
      ...(query.status && { closedAt: query.status === 'closed' ? { not: null } : null }),
      ...(query.from && { endDate: { gte: toSqlDate(query.from) } }),
      AND: [...(query.to ? [{ startDate: { lte: toSqlDate(query.to) } }] : []), ...(after ? [{ startDate: { gt: toSqlDate(after.start) } }] : [])],
    },
    orderBy: { startDate: 'asc' },
    take: query.limit + 1,
  });
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { start: fromSqlDate(last.startDate) }));
  return { fiscal_years: page.map(toFiscalYear), pagination };
}

const invalid = (path: string, message: string): DomainError => new DomainError('VALIDATION_ERROR', { message, details: [{ path, message }] });

/** The shape rules of a fiscal year's dates (Bokföringslagen 3 kap.), or null when they hold. */
export function fiscalYearShapeProblem(start: string, end: string): DomainError | null {
  if (!isFirstOfMonth(start)) return invalid('body.start_date', 'A fiscal year starts on the first day of a month.');
  if (!isLastOfMonth(end)) return invalid('body.end_date', 'A fiscal year ends on the last day of a month.');
  const months = monthsSpanned(start, end);
  if (end <= start || months < MIN_FISCAL_YEAR_MONTHS || months > MAX_FISCAL_YEAR_MONTHS) {
    return invalid('body.end_date', `A fiscal year spans ${MIN_FISCAL_YEAR_MONTHS}-${MAX_FISCAL_YEAR_MONTHS} months.`);
  }
  return null;
}

/**
 * Whether a new year fits beside the company's others: years are contiguous, with no overlap
 * and no gap to the year before or after it. Null when it fits.
 */
export function fiscalYearConflict(years: readonly { start_date: string; end_date: string }[], start: string, end: string): DomainError | null {
  const sorted = [...years].sort((a, b) => a.start_date.localeCompare(b.start_date));
  const overlapping = sorted.find((year) => year.start_date <= end && year.end_date >= start);
  if (overlapping) {
    return new DomainError('FISCAL_YEAR_OVERLAP', {
      message: `The fiscal year ${overlapping.start_date} – ${overlapping.end_date} overlaps ${start} – ${end}.`,
    });
  }
  const previous = sorted.filter((year) => year.end_date < start).at(-1);
  const next = sorted.find((year) => year.start_date > end);
  if (previous && addDays(previous.end_date, 1) !== start) {
    return new DomainError('FISCAL_YEAR_GAP', {
      message: `The previous fiscal year ends ${previous.end_date}; the next one must start ${addDays(previous.end_date, 1)}.`,
      details: [{ path: 'body.start_date', message: `Use ${addDays(previous.end_date, 1)}.` }],
    });
  }
  if (next && addDays(end, 1) !== next.start_date) {
    return new DomainError('FISCAL_YEAR_GAP', {
      message: `The following fiscal year starts ${next.start_date}; this one must end ${addDays(next.start_date, -1)}.`,
      details: [{ path: 'body.end_date', message: `Use ${addDays(next.start_date, -1)}.` }],
    });
  }
  return null;
}

/**
 * Creates a fiscal year and its monthly periods. Years are contiguous: no overlap with another
 * year and no gap to the year before or after it.
 */
export async function createFiscalYear(ctx: OperationContext, companyId: string, body: FiscalYearCreateBody): Promise<FiscalYear> {
  requireScope(ctx, 'companies:write');
  const start = body.start_date;
  const end = body.end_date ?? lastDayOfMonth(addMonths(start, DEFAULT_FISCAL_YEAR_MONTHS - 1));
  const shape = fiscalYearShapeProblem(start, end);
  if (shape) throw shape;

  return withTransaction(ctx, async (tx) => {
    // Serialises fiscal-year changes per company, so two creates cannot both pass the checks.
    await tx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR UPDATE`;
    const existing = await tx.db.fiscalYear.findMany({ where: { companyId }, orderBy: { startDate: 'asc' } });
    const conflict = fiscalYearConflict(existing.map(toFiscalYear), start, end);
    if (conflict) throw conflict;
    const row = await insertFiscalYear(tx.db, companyId, start, end);
    return toFiscalYear(row);
  });
}

/** Writes a fiscal year and one period per calendar month; the caller has checked the dates. */
export async function insertFiscalYear(db: Db, companyId: string, start: string, end: string, importId: string | null = null): Promise<FiscalYearRow> {
  return db.fiscalYear.create({
    data: {
      companyId,
      importId,
      startDate: toSqlDate(start),
      endDate: toSqlDate(end),
      periods: {
        create: Array.from({ length: monthsSpanned(start, end) }, (_, index) => {
          const periodStart = addMonths(start, index);
          return { startDate: toSqlDate(periodStart), endDate: toSqlDate(lastDayOfMonth(periodStart)) };
        }),
      },
    },
  });
}
