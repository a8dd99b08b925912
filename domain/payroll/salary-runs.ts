import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { MAX_COMMITTED_DEBIT_ORE } from '../ledger/amount-limits.ts';
import { bookEntry } from '../ledger/commit.ts';
import { lastDayOfMonth } from '../ledger/calendar.ts';
import { fromSqlDate, toSqlDate } from '../ledger/schemas.ts';
import { contributionRatesOn, employerContribution, preliminaryTax } from './contribution-rates.ts';
import { PAYROLL_READ } from './employees.ts';
import { z } from 'zod';
import { booksInstant } from '../kernel/books-dates.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, keysetTimestampSql, type PaginationMeta } from '../kernel/pagination.ts';
import { Month, type SalaryRun, type SalaryRunCreateBody, type SalaryRunListQuery } from './schemas.ts';

/** Salary entries go in their own voucher series, as Swedish payroll programs book them. */
export const SALARY_SERIES = 'L';
/** Default pay day in the month (the 25th, the usual Swedish pay day). */
export const DEFAULT_PAY_DAY = 25;

/** BAS accounts a booked run posts to. */
export const SALARY_ACCOUNTS = {
  salary: '7210',
  contributions: '7510',
  withheldTax: '2710',
  contributionsPayable: '2731',
  bank: '1930',
} as const;

const RUN_COLUMNS = `
         r.id, r.company_id, to_char(r.period, 'YYYY-MM') AS period, r.pay_date::text AS pay_date, r.status,
         r.gross, r.tax, r.contributions, r.net, r.journal_entry_id, r.approved_at, r.booked_at, r.cancelled_at, r.created_at,
         coalesce((SELECT json_agg(json_build_object(
                     'employee_id', l.employee_id, 'name', e.name, 'personal_identity_number', e.pin_masked,
                     'gross', l.gross, 'tax', l.tax, 'contributions', l.contributions,
                     'contribution_rate', l.contribution_rate_hundredths / 100.0, 'net', l.net) ORDER BY e.name, l.employee_id)
                     FROM salary_run_lines l JOIN employees e ON e.company_id = l.company_id AND e.id = l.employee_id
                    WHERE l.company_id = r.company_id AND l.salary_run_id = r.id), '[]'::json) AS lines`;
const RUN_SELECT = `SELECT ${RUN_COLUMNS} FROM salary_runs r`;

interface RunRow {
  id: string;
  company_id: string;
  period: string;
  pay_date: string;
  status: SalaryRun['status'];
  gross: bigint;
  tax: bigint;
  contributions: bigint;
  net: bigint;
  journal_entry_id: string | null;
  approved_at: Date | null;
  booked_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  lines: SalaryRun['lines'];
}

const toRun = (row: RunRow): SalaryRun => ({
  id: row.id,
  company_id: row.company_id,
  period: row.period,
  pay_date: row.pay_date,
  status: row.status,
  employee_count: row.lines.length,
  gross: Number(row.gross),
  tax: Number(row.tax),
  contributions: Number(row.contributions),
  net: Number(row.net),
  currency: 'SEK',
  lines: row.lines.map((line) => ({ ...line, contribution_rate: Number(line.contribution_rate) })),
  journal_entry_id: row.journal_entry_id,
  approved_at: row.approved_at?.toISOString() ?? null,
  booked_at: row.booked_at?.toISOString() ?? null,
  cancelled_at: row.cancelled_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

const runNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such salary run in this company.' });

async function readRun(ctx: OperationContext, companyId: string, runId: string): Promise<SalaryRun | null> {
  const [row] = await ctx.db.$queryRawUnsafe<RunRow[]>(`${RUN_SELECT} WHERE r.company_id = $1::uuid AND r.id = $2::uuid`, companyId, runId);
  return row ? toRun(row) : null;
}

export async function getSalaryRun(ctx: OperationContext, companyId: string, runId: string): Promise<SalaryRun> {
  requireScope(ctx, PAYROLL_READ);
  const run = await readRun(ctx, companyId, runId);
  if (!run) throw runNotFound();
  return run;
}

const LIST_NAME = 'salary_runs';
const ListKey = z.object({ period: Month, at: booksInstant({ precision: 6 }), id: z.uuid() });

/** Runs newest month first (then newest created), a page at a time. */
export async function listSalaryRuns(
  ctx: OperationContext,
  companyId: string,
  query: SalaryRunListQuery,
): Promise<{ salary_runs: SalaryRun[]; pagination: PaginationMeta }> {
  requireScope(ctx, PAYROLL_READ);
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const firstOf = (month: string | undefined): string | null => (month ? `${month}-01` : null);
  const rows = await ctx.db.$queryRawUnsafe<(RunRow & { key: string })[]>(
    `SELECT ${RUN_COLUMNS}, ${keysetTimestampSql('r.created_at')} AS key FROM salary_runs r
      WHERE r.company_id = $1::uuid AND ($2::text IS NULL OR r.status = $2)
        AND ($3::date IS NULL OR r.period >= $3::date) AND ($4::date IS NULL OR r.period <= $4::date)
        AND ($5::date IS NULL OR (r.period, r.created_at, r.id) < ($5::date, $6::timestamptz, $7::uuid))
      ORDER BY r.period DESC, r.created_at DESC, r.id DESC
      LIMIT $8`,
    companyId,
    query.status ?? null,
    firstOf(query.from),
    firstOf(query.to),
    firstOf(after?.period),
    after?.at ?? null,
    after?.id ?? null,
    query.limit + 1,
  );
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { period: last.period, at: last.key, id: last.id }));
  return { salary_runs: page.map(toRun), pagination };
}

/**
 * A draft run for one month: a line per employee employed in it, with gross pay (the monthly
 * salary; no pro-rating), preliminary tax and employer contributions at the rates of the pay date.
 */
export async function createSalaryRun(ctx: OperationContext, companyId: string, body: SalaryRunCreateBody): Promise<SalaryRun> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'companies:write');
  const monthStart = `${body.period}-01`;
  const monthEnd = lastDayOfMonth(monthStart);
  const payDate = body.pay_date ?? `${body.period}-${DEFAULT_PAY_DAY}`;
  return withTransaction(ctx, async (tx) => {
    const employees = await tx.db.employee.findMany({
      where: {
        companyId,
        employmentStart: { lte: toSqlDate(monthEnd) },
        OR: [{ employmentEnd: null }, { employmentEnd: { gte: toSqlDate(monthStart) } }],
      },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
    const rates = await contributionRatesOn(tx.db, payDate);
    if (employees.length === 0) {
      throw new DomainError('NO_ACTIVE_EMPLOYEES', { message: `No employee is employed in ${body.period}.` });
    }
    const lines = employees.map((employee) => {
      const gross = Number(employee.monthlySalary);
      const tax = preliminaryTax(gross, {
        rateHundredths: employee.taxRateHundredths,
        amount: employee.taxAmount === null ? null : Number(employee.taxAmount),
      });
      const contribution = employerContribution(gross, Number(fromSqlDate(employee.birthDate).slice(0, 4)), payDate, rates);
      return { employeeId: employee.id, gross, tax, contributions: contribution.amount, rate: contribution.rateHundredths, net: gross - tax };
    });
    // Exact sums: a run of many employees at the largest salary passes 2^53, where Number rounds.
    const sum = (pick: (line: (typeof lines)[number]) => number) => lines.reduce((total, line) => total + BigInt(pick(line)), 0n);
    // The run books gross + contributions as debits; a run that could never be booked is refused now,
    // so its totals (and every read of it) stay within what the books carry.
    if (sum((l) => l.gross) + sum((l) => l.contributions) > BigInt(MAX_COMMITTED_DEBIT_ORE)) {
      throw new DomainError('AMOUNT_LIMIT_REACHED', {
        message: `The run's gross pay and employer contributions add up to more than ${MAX_COMMITTED_DEBIT_ORE} öre, the bound the books can carry (docs/amounts.md).`,
      });
    }
    let runId: string;
    try {
      const run = await tx.db.salaryRun.create({
        data: {
          companyId,
          period: toSqlDate(monthStart),
          payDate: toSqlDate(payDate),
          gross: sum((l) => l.gross),
          tax: sum((l) => l.tax),
          contributions: sum((l) => l.contributions),
          net: sum((l) => l.net),
          lines: {
            create: lines.map((line) => ({
              employeeId: line.employeeId,
              gross: BigInt(line.gross),
              tax: BigInt(line.tax),
              contributions: BigInt(line.contributions),
              contributionRateHundredths: line.rate,
              net: BigInt(line.net),
            })),
          },
        },
        select: { id: true },
      });
      runId = run.id;
    } catch (error) {
      if (isUniqueViolation(error)) throw new DomainError('SALARY_RUN_EXISTS', { message: `A salary run for ${body.period} already exists.` });
      throw error;
    }
    const created = (await readRun(tx, companyId, runId)) as SalaryRun;
    await emitEvent(tx, companyId, 'salary_run.created', created, null);
    return created;
  });
}

/**
 * Moves a run from one of `from` to `to` with one conditional UPDATE; a run in another state
 * gets SALARY_RUN_STATE, an unknown one 404.
 */
async function transition(
  ctx: OperationContext,
  companyId: string,
  runId: string,
  from: readonly SalaryRun['status'][],
  to: 'approved' | 'cancelled',
): Promise<SalaryRun> {
  const stamp = to === 'approved' ? 'approved_at' : 'cancelled_at';
  const changed = await ctx.db.$executeRawUnsafe(
    `UPDATE salary_runs SET status = $3, ${stamp} = $4 WHERE company_id = $1::uuid AND id = $2::uuid AND status = ANY($5::text[])`,
    companyId,
    runId,
    to,
    ctx.services.now(),
    from,
  );
  const run = await readRun(ctx, companyId, runId);
  if (!run) throw runNotFound();
  if (changed === 0) {
    throw new DomainError('SALARY_RUN_STATE', { message: `The run is ${run.status}; only a ${from.join(' or ')} run can become ${to}.` });
  }
  return run;
}

export async function approveSalaryRun(ctx: OperationContext, companyId: string, runId: string): Promise<SalaryRun> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    const run = await transition(tx, companyId, runId, ['draft'], 'approved');
    await emitEvent(tx, companyId, 'salary_run.approved', run, { status: 'draft', approved_at: null });
    return run;
  });
}

export async function cancelSalaryRun(ctx: OperationContext, companyId: string, runId: string): Promise<SalaryRun> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    const before = await readRun(tx, companyId, runId);
    const run = await transition(tx, companyId, runId, ['draft', 'approved'], 'cancelled');
    await emitEvent(tx, companyId, 'salary_run.cancelled', run, { status: before?.status ?? null, cancelled_at: null });
    return run;
  });
}

/**
 * Books an approved run as one committed, balanced entry in series L on the pay date: salary and
 * employer contributions as costs, withheld tax and contributions as debts, net pay from the bank.
 */
export async function bookSalaryRun(ctx: OperationContext, companyId: string, runId: string): Promise<SalaryRun> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    const [locked] = await tx.db.$queryRaw<{ status: string }[]>`
      SELECT status FROM salary_runs WHERE company_id = ${companyId}::uuid AND id = ${runId}::uuid FOR UPDATE`;
    if (!locked) throw runNotFound();
    if (locked.status !== 'approved') {
      throw new DomainError('SALARY_RUN_STATE', { message: `The run is ${locked.status}; approve it before booking.` });
    }
    const run = (await readRun(tx, companyId, runId)) as SalaryRun;
    const line = (account: string, side: 'debit' | 'credit', amount: number, description: string) =>
      amount > 0 ? [{ account, debit: side === 'debit' ? amount : 0, credit: side === 'credit' ? amount : 0, description }] : [];
    const entry = await bookEntry(tx, companyId, {
      date: run.pay_date,
      description: `Löner ${run.period}`,
      series: SALARY_SERIES,
      lines: [
        ...line(SALARY_ACCOUNTS.salary, 'debit', run.gross, 'Bruttolöner'),
        ...line(SALARY_ACCOUNTS.contributions, 'debit', run.contributions, 'Arbetsgivaravgifter'),
        ...line(SALARY_ACCOUNTS.withheldTax, 'credit', run.tax, 'Preliminärskatt'),
        ...line(SALARY_ACCOUNTS.contributionsPayable, 'credit', run.contributions, 'Arbetsgivaravgifter att betala'),
        ...line(SALARY_ACCOUNTS.bank, 'credit', run.net, 'Nettolöner'),
      ],
    });
    await tx.db.salaryRun.update({ where: { id: runId }, data: { status: 'booked', journalEntryId: entry.id, bookedAt: tx.services.now() } });
    const booked = (await readRun(tx, companyId, runId)) as SalaryRun;
    await emitEvent(tx, companyId, 'salary_run.booked', booked, { status: 'approved', journal_entry_id: null, booked_at: null });
    return booked;
  });
}
