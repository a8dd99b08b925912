import type { OperationContext } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { isoToday } from '../ledger/calendar.ts';
import type { ReportPeriod, ReportRangeQuery } from './schemas.ts';

interface YearRow {
  id: string;
  start_date: string;
  end_date: string;
}

const invalid = (path: string, message: string): DomainError =>
  new DomainError('VALIDATION_ERROR', { message: `${path}: ${message}`, details: [{ path, message }] });

export const fiscalYearNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such fiscal year in this company.' });

async function yearById(ctx: OperationContext, companyId: string, id: string): Promise<YearRow | undefined> {
  const [row] = await ctx.db.$queryRaw<YearRow[]>`
    SELECT id, start_date::text AS start_date, end_date::text AS end_date
      FROM fiscal_years WHERE company_id = ${companyId}::uuid AND id = ${id}::uuid AND import_id IS NULL`;
  return row;
}

async function yearContaining(ctx: OperationContext, companyId: string, date: string): Promise<YearRow | undefined> {
  const [row] = await ctx.db.$queryRaw<YearRow[]>`
    SELECT id, start_date::text AS start_date, end_date::text AS end_date
      FROM fiscal_years WHERE company_id = ${companyId}::uuid AND import_id IS NULL AND start_date <= ${date}::date AND end_date >= ${date}::date`;
  return row;
}

const noYear = (date: string, path: string): DomainError =>
  new DomainError('NO_FISCAL_YEAR', { message: `No fiscal year covers ${date}.`, details: [{ path, message: `${date} is outside every fiscal year.` }] });

export interface PeriodRules {
  /** A report as of a date (the balance sheet): `to` alone covers its fiscal year up to `to`. */
  asOf?: boolean;
}

/**
 * The dates a report covers: a whole fiscal year (`fiscal_year_id`), a range inside one fiscal
 * year (`from` and `to`), or, with neither, the fiscal year containing today; a report as of a
 * date also takes `to` alone, from the start of its fiscal year. A report stays in one fiscal
 * year because result accounts start from zero at each year's start.
 */
export async function resolvePeriod(ctx: OperationContext, companyId: string, query: ReportRangeQuery, rules: PeriodRules = {}): Promise<ReportPeriod> {
  if (query.fiscal_year_id !== undefined && (query.from !== undefined || query.to !== undefined)) {
    throw invalid('query.fiscal_year_id', `Give either fiscal_year_id or ${rules.asOf ? 'to (and optionally from)' : 'from and to'}, not both.`);
  }
  if (rules.asOf && query.from === undefined && query.to !== undefined) {
    const year = await yearContaining(ctx, companyId, query.to);
    if (!year) throw noYear(query.to, 'query.to');
    return { from: year.start_date, to: query.to, fiscal_year: year };
  }
  if (rules.asOf && query.from !== undefined && query.to === undefined) {
    throw invalid('query.to', 'A balance sheet is as of a date: give to (from alone has no end).');
  }
  if ((query.from === undefined) !== (query.to === undefined)) {
    throw invalid(query.from === undefined ? 'query.from' : 'query.to', 'from and to go together: give both, or neither.');
  }
  if (query.fiscal_year_id !== undefined) {
    const year = await yearById(ctx, companyId, query.fiscal_year_id);
    if (!year) throw fiscalYearNotFound();
    return { from: year.start_date, to: year.end_date, fiscal_year: year };
  }
  if (query.from !== undefined && query.to !== undefined) {
    if (query.from > query.to) throw invalid('query.to', `to (${query.to}) is before from (${query.from}).`);
    const year = await yearContaining(ctx, companyId, query.from);
    if (!year) throw noYear(query.from, 'query.from');
    if (query.to > year.end_date) {
      throw invalid('query.to', `A report covers one fiscal year: to must be on or before ${year.end_date}, the end of the year from lies in.`);
    }
    return { from: query.from, to: query.to, fiscal_year: year };
  }
  const today = isoToday(ctx.services.now());
  const year = await yearContaining(ctx, companyId, today);
  if (!year) throw noYear(today, 'query.from');
  return { from: year.start_date, to: year.end_date, fiscal_year: year };
}
