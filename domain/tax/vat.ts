import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { fromSqlDate, toSqlDate } from '../ledger/schemas.ts';
import { VatReturn, type VatReturnGenerateBody } from './schemas.ts';

/**
 * Where each box of the VAT return comes from, by BAS account range and the sign that makes the
 * usual balance positive: output VAT and sales are credits, input VAT is a debit.
 */
const BOX_SOURCES = [
  { box: '05', label: 'Momspliktig försäljning', sign: -1, where: `a.type = 'revenue' AND a.vat_code IN ('standard_25', 'reduced_12', 'reduced_6')` },
  { box: '10', label: 'Utgående moms 25 %', sign: -1, where: `a.number BETWEEN '2610' AND '2619'` },
  { box: '11', label: 'Utgående moms 12 %', sign: -1, where: `a.number BETWEEN '2620' AND '2629'` },
  { box: '12', label: 'Utgående moms 6 %', sign: -1, where: `a.number BETWEEN '2630' AND '2639'` },
  { box: '48', label: 'Ingående moms att dra av', sign: 1, where: `a.number BETWEEN '2640' AND '2649'` },
] as const;

interface VatRow {
  id: string;
  companyId: string;
  periodStart: Date;
  periodEnd: Date;
  status: string;
  boxes: unknown;
  outputVat: bigint;
  inputVat: bigint;
  netVat: bigint;
  generatedAt: Date;
  submittedAt: Date | null;
}

const toVatReturn = (row: VatRow): VatReturn =>
  VatReturn.parse({
    id: row.id,
    company_id: row.companyId,
    period_start: fromSqlDate(row.periodStart),
    period_end: fromSqlDate(row.periodEnd),
    status: row.status,
    boxes: row.boxes,
    output_vat: Number(row.outputVat),
    input_vat: Number(row.inputVat),
    net_vat: Number(row.netVat),
    currency: 'SEK',
    generated_at: row.generatedAt.toISOString(),
    submitted_at: row.submittedAt?.toISOString() ?? null,
  });

const notFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such VAT return in this company.' });

export async function getVatReturn(ctx: OperationContext, companyId: string, id: string): Promise<VatReturn> {
  requireScope(ctx, 'compliance:read');
  const row = await ctx.db.vatReturn.findFirst({ where: { companyId, id } });
  if (!row) throw notFound();
  return toVatReturn(row);
}

export async function listVatReturns(ctx: OperationContext, companyId: string): Promise<VatReturn[]> {
  requireScope(ctx, 'compliance:read');
  const rows = await ctx.db.vatReturn.findMany({ where: { companyId }, orderBy: { periodStart: 'desc' } });
  return rows.map(toVatReturn);
}

/**
 * The return for whole accounting periods, from committed entries only, once every period it
 * covers is locked (so the figures can no longer move). Sums are aggregated in SQL, one GROUP BY.
 */
export async function generateVatReturn(ctx: OperationContext, companyId: string, body: VatReturnGenerateBody): Promise<VatReturn> {
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    const periods = await tx.db.$queryRaw<{ start_date: string; end_date: string; locked: boolean }[]>`
      SELECT start_date::text AS start_date, end_date::text AS end_date, locked_at IS NOT NULL AS locked
        FROM periods
       WHERE company_id = ${companyId}::uuid AND end_date >= ${body.period_start}::date AND start_date <= ${body.period_end}::date
       ORDER BY start_date
         FOR SHARE`;
    const first = periods[0];
    const last = periods.at(-1);
    if (!first || !last || first.start_date !== body.period_start || last.end_date !== body.period_end) {
      throw new DomainError('VAT_PERIOD_INVALID', {
        message: `${body.period_start} – ${body.period_end} does not start and end on the company's period boundaries.`,
        details: [{ path: 'body', message: 'period_start must be the first day of a period and period_end the last day of one.' }],
      });
    }
    const open = periods.filter((p) => !p.locked);
    if (open.length > 0) {
      throw new DomainError('PERIODS_NOT_LOCKED', {
        message: `Lock these periods first: ${open.map((p) => p.start_date.slice(0, 7)).join(', ')}.`,
        details: open.map((p) => ({ path: `period ${p.start_date.slice(0, 7)}`, message: `${p.start_date} – ${p.end_date} is open.` })),
      });
    }
    const sums = await tx.db.$queryRawUnsafe<{ box: string; account: string; name: string; amount: bigint }[]>(
      `${BOX_SOURCES.map(
        (source) => `
        SELECT '${source.box}' AS box, a.number AS account, a.name, (${source.sign} * sum(l.debit - l.credit))::bigint AS amount
          FROM journal_lines l
          JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
          JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
         WHERE l.company_id = $1::uuid AND e.status = 'committed' AND e.date BETWEEN $2::date AND $3::date AND ${source.where}
         GROUP BY a.number, a.name`,
      ).join(' UNION ALL ')} ORDER BY box, account`,
      companyId,
      body.period_start,
      body.period_end,
    );
    const boxes = BOX_SOURCES.map((source) => {
      const accounts = sums.filter((s) => s.box === source.box).map((s) => ({ account: s.account, name: s.name, amount: Number(s.amount) }));
      return { box: source.box, label: source.label, amount: accounts.reduce((total, a) => total + a.amount, 0), accounts };
    });
    const amountOf = (box: string) => boxes.find((b) => b.box === box)?.amount ?? 0;
    const outputVat = amountOf('10') + amountOf('11') + amountOf('12');
    const inputVat = amountOf('48');
    const all = [...boxes, { box: '49', label: 'Moms att betala eller få tillbaka', amount: outputVat - inputVat, accounts: [] }];

    const existing = await tx.db.vatReturn.findFirst({
      where: { companyId, periodStart: toSqlDate(body.period_start), periodEnd: toSqlDate(body.period_end) },
    });
    if (existing?.status === 'submitted') {
      throw new DomainError('FILING_SUBMITTED', { message: 'The VAT return for this period was already submitted.' });
    }
    const data = {
      boxes: all,
      outputVat: BigInt(outputVat),
      inputVat: BigInt(inputVat),
      netVat: BigInt(outputVat - inputVat),
      generatedAt: tx.services.now(),
    };
    const row = existing
      ? await tx.db.vatReturn.update({ where: { id: existing.id }, data })
      : await tx.db.vatReturn.create({
          data: { companyId, periodStart: toSqlDate(body.period_start), periodEnd: toSqlDate(body.period_end), ...data },
        });
    const vatReturn = toVatReturn(row);
    await emitEvent(tx, companyId, 'vat_return.generated', vatReturn, null);
    return vatReturn;
  });
}

export async function submitVatReturn(ctx: OperationContext, companyId: string, id: string): Promise<VatReturn> {
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.vatReturn.updateManyAndReturn({
      where: { companyId, id, status: 'generated' },
      data: { status: 'submitted', submittedAt: tx.services.now() },
    });
    if (!row) {
      if (!(await tx.db.vatReturn.findFirst({ where: { companyId, id }, select: { id: true } }))) throw notFound();
      throw new DomainError('FILING_SUBMITTED', { message: 'This VAT return was already submitted.' });
    }
    const vatReturn = toVatReturn(row);
    await emitEvent(tx, companyId, 'vat_return.submitted', vatReturn, { status: 'generated', submitted_at: null });
    return vatReturn;
  });
}
