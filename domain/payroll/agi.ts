import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { toSqlDate } from '../ledger/schemas.ts';
import { PAYROLL_READ } from './employees.ts';
import { Agi, AgiIndividual } from './schemas.ts';
import { z } from 'zod';

interface AgiRow {
  id: string;
  companyId: string;
  period: Date;
  version: number;
  status: string;
  gross: bigint;
  tax: bigint;
  contributions: bigint;
  individuals: unknown;
  correctsId: string | null;
  generatedAt: Date;
  submittedAt: Date | null;
}

const toAgi = (row: AgiRow): Agi =>
  Agi.parse({
    id: row.id,
    company_id: row.companyId,
    period: row.period.toISOString().slice(0, 7),
    version: row.version,
    status: row.status,
    gross: Number(row.gross),
    tax: Number(row.tax),
    contributions: Number(row.contributions),
    currency: 'SEK',
    individuals: row.individuals,
    corrects_id: row.correctsId,
    generated_at: row.generatedAt.toISOString(),
    submitted_at: row.submittedAt?.toISOString() ?? null,
  });

const agiNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such employer declaration in this company.' });

export async function getAgi(ctx: OperationContext, companyId: string, agiId: string): Promise<Agi> {
  requireScope(ctx, PAYROLL_READ);
  const row = await ctx.db.agiDeclaration.findFirst({ where: { companyId, id: agiId } });
  if (!row) throw agiNotFound();
  return toAgi(row);
}

/** Every version of every month, newest month first (a dozen a year). */
export async function listAgis(ctx: OperationContext, companyId: string, period?: string): Promise<Agi[]> {
  requireScope(ctx, PAYROLL_READ);
  const rows = await ctx.db.agiDeclaration.findMany({
    where: { companyId, ...(period && { period: toSqlDate(`${period}-01`) }) },
    orderBy: [{ period: 'desc' }, { version: 'desc' }],
  });
  return rows.map(toAgi);
}

/**
 * The month's declaration from its booked salary runs: the employer part (totals) and one
 * individual part per employee. An unsubmitted declaration of the month is replaced; a submitted
 * one is never touched — generating again makes a new version that corrects it.
 */
export async function generateAgi(ctx: OperationContext, companyId: string, period: string): Promise<Agi> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    // One generation per company at a time, so versions never collide.
    await tx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR UPDATE`;
    const summed = await tx.db.$queryRaw<{ employee_id: string; name: string; pin: string; gross: bigint; tax: bigint; contributions: bigint }[]>`
        SELECT l.employee_id, e.name, e.pin_masked AS pin,
               sum(l.gross)::bigint AS gross, sum(l.tax)::bigint AS tax, sum(l.contributions)::bigint AS contributions
          FROM salary_run_lines l
          JOIN salary_runs r ON r.company_id = l.company_id AND r.id = l.salary_run_id
          JOIN employees e ON e.company_id = l.company_id AND e.id = l.employee_id
         WHERE l.company_id = ${companyId}::uuid AND r.period = ${`${period}-01`}::date AND r.status = 'booked'
         GROUP BY l.employee_id, e.name, e.pin_masked
         ORDER BY e.name, l.employee_id`;
    const individuals = z.array(AgiIndividual).parse(
      summed.map((i) => ({
        employee_id: i.employee_id,
        name: i.name,
        personal_identity_number: i.pin,
        gross: Number(i.gross),
        tax: Number(i.tax),
        contributions: Number(i.contributions),
      })),
    );
    if (individuals.length === 0) {
      throw new DomainError('NO_BOOKED_SALARY_RUNS', { message: `${period} has no booked salary run.` });
    }
    const totals = {
      gross: BigInt(individuals.reduce((sum, i) => sum + i.gross, 0)),
      tax: BigInt(individuals.reduce((sum, i) => sum + i.tax, 0)),
      contributions: BigInt(individuals.reduce((sum, i) => sum + i.contributions, 0)),
    };
    const latest = await tx.db.agiDeclaration.findFirst({
      where: { companyId, period: toSqlDate(`${period}-01`) },
      orderBy: { version: 'desc' },
    });
    const data = { ...totals, individuals, generatedAt: tx.services.now() };
    const row =
      latest && latest.status === 'generated'
        ? await tx.db.agiDeclaration.update({ where: { id: latest.id }, data })
        : await tx.db.agiDeclaration.create({
            data: {
              companyId,
              period: toSqlDate(`${period}-01`),
              version: (latest?.version ?? 0) + 1,
              correctsId: latest?.id ?? null,
              ...data,
            },
          });
    const agi = toAgi(row);
    await emitEvent(tx, companyId, 'agi.generated', agi, null);
    return agi;
  });
}

/** Records the filing and freezes it (no agency is called). */
export async function submitAgi(ctx: OperationContext, companyId: string, agiId: string): Promise<Agi> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.agiDeclaration.updateManyAndReturn({
      where: { companyId, id: agiId, status: 'generated' },
      data: { status: 'submitted', submittedAt: tx.services.now() },
    });
    if (!row) {
      const exists = await tx.db.agiDeclaration.findFirst({ where: { companyId, id: agiId }, select: { id: true } });
      if (!exists) throw agiNotFound();
      throw new DomainError('FILING_SUBMITTED', { message: 'This declaration was already submitted.' });
    }
    const agi = toAgi(row);
    await emitEvent(tx, companyId, 'agi.submitted', agi, { status: 'generated', submitted_at: null });
    return agi;
  });
}
