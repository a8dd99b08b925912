import { z } from 'zod';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError, type ErrorDetail } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { fromSqlDate, toSqlDate } from '../ledger/schemas.ts';
import { wholeKronor } from '../tax/vat-boxes.ts';
import { contributionParts, contributionRatesOn } from './contribution-rates.ts';
import { PAYROLL_READ } from './employees.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta } from '../kernel/pagination.ts';
import { Agi, AgiContact, type AgiGenerateBody, AgiIndividual, type AgiListQuery, Month } from './schemas.ts';

/**
 * A stored individual part: the public shape plus what only the file needs — the personal
 * identity number, encrypted as on the employee, frozen with the declaration so the file of a
 * submitted version never changes.
 */
const StoredIndividual = AgiIndividual.extend({
  pin_encrypted: z.string(),
  declared_gross: z.number().int(),
  declared_tax: z.number().int(),
  workplace_address: z.string().nullable(),
  workplace_city: z.string().nullable(),
});
export type StoredIndividual = z.infer<typeof StoredIndividual>;

export interface AgiRow {
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
  contact: unknown;
  declaredTax: bigint | null;
  declaredContributions: bigint | null;
  generatedAt: Date;
  submittedAt: Date | null;
}

/** Declarations from before the file existed lack the FK fields: shown with what is known. */
const individualsOf = (row: AgiRow): StoredIndividual[] =>
  (row.individuals as Partial<StoredIndividual>[]).map((i) => ({
    specification_number: 1,
    declared_gross: wholeKronor(i.gross ?? 0),
    declared_tax: wholeKronor(i.tax ?? 0),
    workplace_address: null,
    workplace_city: null,
    change: 'new',
    pin_encrypted: '',
    ...i,
  })) as StoredIndividual[];

export const storedIndividuals = (row: AgiRow): StoredIndividual[] => individualsOf(row);

export const toAgi = (row: AgiRow): Agi =>
  Agi.parse({
    id: row.id,
    company_id: row.companyId,
    period: row.period.toISOString().slice(0, 7),
    version: row.version,
    status: row.status,
    gross: Number(row.gross),
    tax: Number(row.tax),
    contributions: Number(row.contributions),
    declared:
      row.declaredTax === null || row.declaredContributions === null
        ? null
        : { tax: Number(row.declaredTax), contributions: Number(row.declaredContributions) },
    currency: 'SEK',
    individuals: individualsOf(row).map(
      ({ pin_encrypted: _secret, declared_gross: _gross, declared_tax: _tax, workplace_address: _street, workplace_city: _city, ...individual }) => individual,
    ),
    corrects_id: row.correctsId,
    generated_at: row.generatedAt.toISOString(),
    submitted_at: row.submittedAt?.toISOString() ?? null,
  });

const agiNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such employer declaration in this company.' });

export async function readAgiRow(ctx: OperationContext, companyId: string, agiId: string): Promise<AgiRow> {
  const row = await ctx.db.agiDeclaration.findFirst({ where: { companyId, id: agiId } });
  if (!row) throw agiNotFound();
  return row;
}

export async function getAgi(ctx: OperationContext, companyId: string, agiId: string): Promise<Agi> {
  requireScope(ctx, PAYROLL_READ);
  return toAgi(await readAgiRow(ctx, companyId, agiId));
}

/** Every version of every month, newest month first (a dozen a year). */
const LIST_NAME = 'agis';
const ListKey = z.object({ period: Month, version: z.number().int().positive() });

/** Declarations newest month first, every version (newest first), a page at a time. */
export async function listAgis(ctx: OperationContext, companyId: string, query: AgiListQuery): Promise<{ agis: Agi[]; pagination: PaginationMeta }> {
  requireScope(ctx, PAYROLL_READ);
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const month = (text: string): Date => toSqlDate(`${text}-01`);
  const rows = await ctx.db.agiDeclaration.findMany({
    where: {
      companyId,
      AND: [
        ...(query.period ? [{ period: month(query.period) }] : []),
        ...(query.from ? [{ period: { gte: month(query.from) } }] : []),
        ...(query.to ? [{ period: { lte: month(query.to) } }] : []),
        // (period, version) < the cursor's, in the descending order below.
        ...(after ? [{ OR: [{ period: { lt: month(after.period) } }, { period: month(after.period), version: { lt: after.version } }] }] : []),
      ],
    },
    orderBy: [{ period: 'desc' }, { version: 'desc' }],
    take: query.limit + 1,
  });
  const { page, pagination } = keysetPage(rows, query.limit, (last) =>
    encodeKeysetCursor(LIST_NAME, { period: fromSqlDate(last.period).slice(0, 7), version: last.version }),
  );
  return { agis: page.map(toAgi), pagination };
}

interface PayeeRow {
  employee_id: string;
  name: string;
  pin_masked: string;
  pin_encrypted: string;
  birth_date: Date;
  specification_number: number;
  workplace_address: string | null;
  workplace_city: string | null;
  pay_date: string;
  gross: bigint;
  tax: bigint;
  contributions: bigint;
}

/**
 * FK487 as Skatteverket computes it from the individual parts (Skatteverket, ställningstagande
 * 2017-06-08, dnr 131 238881-17/111): the declared whole-kronor pay split by contribution rate,
 * each rate's fee computed on its sum with the öre dropped, then added up.
 */
async function declaredContributions(ctx: OperationContext, payees: readonly PayeeRow[]): Promise<number> {
  const baseByRate = new Map<number, number>();
  for (const payee of payees) {
    const rates = await contributionRatesOn(ctx.db, payee.pay_date);
    const birthYear = Number(fromSqlDate(payee.birth_date).slice(0, 4));
    for (const part of contributionParts(wholeKronor(Number(payee.gross)), birthYear, payee.pay_date, rates)) {
      baseByRate.set(part.rateHundredths, (baseByRate.get(part.rateHundredths) ?? 0) + part.base);
    }
  }
  let total = 0;
  for (const [rate, base] of baseByRate) total += wholeKronor((base * rate) / 10_000);
  return total;
}

/** The contact a declaration names: the one given, or the company's latest declaration's. */
async function contactFor(ctx: OperationContext, companyId: string, given: AgiContact | undefined): Promise<AgiContact | null> {
  if (given) return given;
  const [previous] = await ctx.db.$queryRaw<{ contact: unknown }[]>`
    SELECT contact FROM agi_declarations WHERE company_id = ${companyId}::uuid AND contact IS NOT NULL ORDER BY generated_at DESC LIMIT 1`;
  return previous ? AgiContact.parse(previous.contact) : null;
}

const sameDeclared = (a: StoredIndividual, b: StoredIndividual): boolean =>
  a.declared_gross === b.declared_gross &&
  a.declared_tax === b.declared_tax &&
  a.workplace_address === b.workplace_address &&
  a.workplace_city === b.workplace_city &&
  a.specification_number === b.specification_number;

/**
 * The month's declaration from its booked salary runs: the employer part (HU) and one individual
 * part (IU) per payee, each with the payee's specification number (FK570) and workplace, amounts
 * in whole kronor as the file declares them. An unsubmitted declaration of the month is replaced;
 * a submitted one is never touched — generating again makes a new version that corrects it, each
 * individual part marked new, changed, unchanged or removed against the version it corrects.
 */
export async function generateAgi(ctx: OperationContext, companyId: string, body: AgiGenerateBody): Promise<Agi> {
  requireScope(ctx, PAYROLL_READ);
  requireScope(ctx, 'compliance:write');
  const { period } = body;
  return withTransaction(ctx, async (tx) => {
    // One generation per company at a time, so versions never collide.
    await tx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR UPDATE`;
    const payees = await tx.db.$queryRaw<PayeeRow[]>`
        SELECT l.employee_id, e.name, e.pin_masked, e.pin_encrypted, e.birth_date, e.specification_number,
               e.workplace_address, e.workplace_city, max(r.pay_date)::text AS pay_date,
               sum(l.gross)::bigint AS gross, sum(l.tax)::bigint AS tax, sum(l.contributions)::bigint AS contributions
          FROM salary_run_lines l
          JOIN salary_runs r ON r.company_id = l.company_id AND r.id = l.salary_run_id
          JOIN employees e ON e.company_id = l.company_id AND e.id = l.employee_id
         WHERE l.company_id = ${companyId}::uuid AND r.period = ${`${period}-01`}::date AND r.status = 'booked'
         GROUP BY l.employee_id, e.name, e.pin_masked, e.pin_encrypted, e.birth_date, e.specification_number, e.workplace_address, e.workplace_city
         ORDER BY e.specification_number`;
    if (payees.length === 0) {
      throw new DomainError('NO_BOOKED_SALARY_RUNS', { message: `${period} has no booked salary run.` });
    }
    const contact = await contactFor(tx, companyId, body.contact);
    const missing: ErrorDetail[] = [
      ...(contact ? [] : [{ path: 'body.contact', message: 'Name, phone and email of the person Skatteverket may contact (no earlier AGI names one).' }]),
      ...payees
        .filter((p) => !p.workplace_address || !p.workplace_city)
        .map((p) => ({
          path: `employees.${p.employee_id}`,
          message: 'workplace_address and workplace_city (FK245, FK246) are missing: set them with updateEmployee.',
        })),
    ];
    if (missing.length > 0 || !contact) {
      throw new DomainError('FILING_INCOMPLETE', { message: `The AGI for ${period} lacks what its file must name.`, details: missing });
    }
    const latest = await tx.db.agiDeclaration.findFirst({ where: { companyId, period: toSqlDate(`${period}-01`) }, orderBy: { version: 'desc' } });
    const correctedId = latest?.status === 'submitted' ? latest.id : (latest?.correctsId ?? null);
    const pinOf = (i: StoredIndividual) => tx.services.secretBox.decrypt(i.pin_encrypted);
    const renumbered = (before: StoredIndividual, now: StoredIndividual) => pinOf(before) !== pinOf(now);
    const corrected = correctedId ? individualsOf(await readAgiRow(tx, companyId, correctedId)).filter((i) => i.change !== 'removed') : [];
    const current: StoredIndividual[] = payees.map((p) => {
      const individual: StoredIndividual = {
        employee_id: p.employee_id,
        name: p.name,
        personal_identity_number: p.pin_masked,
        specification_number: p.specification_number,
        gross: Number(p.gross),
        tax: Number(p.tax),
        contributions: Number(p.contributions),
        declared_gross: wholeKronor(Number(p.gross)),
        declared_tax: wholeKronor(Number(p.tax)),
        workplace_address: p.workplace_address,
        workplace_city: p.workplace_city,
        change: 'new',
        pin_encrypted: p.pin_encrypted,
      };
      const before = corrected.find((i) => i.employee_id === p.employee_id);
      return { ...individual, change: !before || renumbered(before, individual) ? 'new' : sameDeclared(before, individual) ? 'unchanged' : 'changed' };
    });
    // A part whose payee is gone, or whose identity number was corrected (FK215 names a part, so
    // the old one is withdrawn and the right one filed anew), goes as a Borttag.
    const removed: StoredIndividual[] = corrected
      .filter((before) => !current.some((i) => i.employee_id === before.employee_id && !renumbered(before, i)))
      .map((before) => ({ ...before, gross: 0, tax: 0, contributions: 0, declared_gross: 0, declared_tax: 0, change: 'removed' }));
    const individuals = z.array(StoredIndividual).parse([...current, ...removed]);
    const sum = (pick: (i: StoredIndividual) => number) => BigInt(current.reduce((total, i) => total + pick(i), 0));
    const data = {
      gross: sum((i) => i.gross),
      tax: sum((i) => i.tax),
      contributions: sum((i) => i.contributions),
      declaredTax: sum((i) => i.declared_tax),
      declaredContributions: BigInt(await declaredContributions(tx, payees)),
      contact,
      individuals,
      generatedAt: tx.services.now(),
    };
    const row =
      latest && latest.status === 'generated'
        ? await tx.db.agiDeclaration.update({ where: { id: latest.id }, data })
        : await tx.db.agiDeclaration.create({
            data: { companyId, period: toSqlDate(`${period}-01`), version: (latest?.version ?? 0) + 1, correctsId: correctedId, ...data },
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
