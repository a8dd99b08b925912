import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { bookEntry } from '../ledger/commit.ts';
import { fromSqlDate, toSqlDate } from '../ledger/schemas.ts';
import { ENTRY_VISIBLE_SQL } from '../ledger/visibility.ts';
import { z } from 'zod';
import { BooksDate } from '../kernel/books-dates.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta } from '../kernel/pagination.ts';
import { VatReturn, type VatReturnGenerateBody, type VatReturnListQuery } from './schemas.ts';
import {
  type AccountSum,
  type ComputedBox,
  computeBoxes,
  type SettlementLine,
  SETTLEMENT_ENTRY_SQL,
  settlementLines,
  VAT_ACCOUNTS,
  VAT_BOXES,
  VAT_SETTLEMENT_ACCOUNT,
  wholeKronor,
} from './vat-boxes.ts';

export interface VatRow {
  id: string;
  companyId: string;
  periodStart: Date;
  periodEnd: Date;
  version: number;
  correctsId: string | null;
  status: string;
  boxes: unknown;
  outputVat: bigint;
  inputVat: bigint;
  netVat: bigint;
  settlement: unknown;
  settlementEntryId: string | null;
  generatedAt: Date;
  submittedAt: Date | null;
}

type StoredBox = Partial<ComputedBox> & { box: string; amount: number };

/** Returns stored before whole-kronor declaring kept the ledger's öre in `amount`. */
const normaliseBox = (box: StoredBox): ComputedBox =>
  box.exact === undefined
    ? { box: box.box, label: box.label ?? '', amount: wholeKronor(box.amount), exact: box.amount, accounts: box.accounts ?? [] }
    : (box as ComputedBox);

export const toVatReturn = (row: VatRow): VatReturn =>
  VatReturn.parse({
    id: row.id,
    company_id: row.companyId,
    period_start: fromSqlDate(row.periodStart),
    period_end: fromSqlDate(row.periodEnd),
    version: row.version,
    corrects_id: row.correctsId,
    status: row.status,
    boxes: (row.boxes as StoredBox[]).map(normaliseBox),
    output_vat: Number(row.outputVat),
    input_vat: Number(row.inputVat),
    net_vat: Number(row.netVat),
    settlement: { journal_entry_id: row.settlementEntryId, lines: row.settlement },
    currency: 'SEK',
    generated_at: row.generatedAt.toISOString(),
    submitted_at: row.submittedAt?.toISOString() ?? null,
  });

const notFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such VAT return in this company.' });

export async function readVatRow(ctx: OperationContext, companyId: string, id: string): Promise<VatRow> {
  const row = await ctx.db.vatReturn.findFirst({ where: { companyId, id } });
  if (!row) throw notFound();
  return row;
}

export async function getVatReturn(ctx: OperationContext, companyId: string, id: string): Promise<VatReturn> {
  requireScope(ctx, 'compliance:read');
  return toVatReturn(await readVatRow(ctx, companyId, id));
}

/** Every version of every period, newest period first (a few a year). */
const LIST_NAME = 'vat_returns';
const ListKey = z.object({ start: BooksDate, end: BooksDate, version: z.number().int().positive() });

/** Returns newest period first, every version (newest first), a page at a time. */
export async function listVatReturns(
  ctx: OperationContext,
  companyId: string,
  query: VatReturnListQuery,
): Promise<{ vat_returns: VatReturn[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'compliance:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const start = after && toSqlDate(after.start);
  const end = after && toSqlDate(after.end);
  const rows = await ctx.db.vatReturn.findMany({
    where: {
      companyId,
      ...(query.status && { status: query.status }),
      ...(query.from && { periodEnd: { gte: toSqlDate(query.from) } }),
      AND: [
        ...(query.to ? [{ periodStart: { lte: toSqlDate(query.to) } }] : []),
        // (period_start, period_end, version) < the cursor's, in the descending order below.
        ...(after && start && end
          ? [
              {
                OR: [
                  { periodStart: { lt: start } },
                  { periodStart: start, periodEnd: { lt: end } },
                  { periodStart: start, periodEnd: end, version: { lt: after.version } },
                ],
              },
            ]
          : []),
      ],
    },
    orderBy: [{ periodStart: 'desc' }, { periodEnd: 'desc' }, { version: 'desc' }],
    take: query.limit + 1,
  });
  const { page, pagination } = keysetPage(rows, query.limit, (last) =>
    encodeKeysetCursor(LIST_NAME, { start: fromSqlDate(last.periodStart), end: fromSqlDate(last.periodEnd), version: last.version }),
  );
  return { vat_returns: page.map(toVatReturn), pagination };
}

/** The range must be whole accounting periods, all locked, so the figures can no longer move. */
async function assertLockedPeriods(ctx: OperationContext, companyId: string, start: string, end: string): Promise<void> {
  const periods = await ctx.db.$queryRaw<{ start_date: string; end_date: string; locked: boolean }[]>`
    SELECT start_date::text AS start_date, end_date::text AS end_date, locked_at IS NOT NULL AS locked
      FROM periods p
     WHERE company_id = ${companyId}::uuid AND end_date >= ${start}::date AND start_date <= ${end}::date
       AND NOT EXISTS (SELECT 1 FROM fiscal_years y WHERE y.company_id = p.company_id AND y.id = p.fiscal_year_id AND y.import_id IS NOT NULL)
     ORDER BY start_date
       FOR SHARE`;
  const first = periods[0];
  const last = periods.at(-1);
  if (!first || !last || first.start_date !== start || last.end_date !== end) {
    throw new DomainError('VAT_PERIOD_INVALID', {
      message: `${start} – ${end} does not start and end on the company's period boundaries.`,
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
}

interface Figures {
  boxes: ComputedBox[];
  outputVat: number;
  inputVat: number;
  netVat: number;
  settlement: SettlementLine[];
}

/**
 * The return of a range from its committed entries, aggregated in SQL per account (one GROUP BY)
 * and put in boxes by the declaration (vat-boxes.ts). Settlement entries are left out of the
 * boxes — so the return is the same before and after the momsavräkning is booked — but counted
 * for what the next settlement still has to move.
 */
async function figuresOf(ctx: OperationContext, companyId: string, start: string, end: string): Promise<Figures> {
  const rows = await ctx.db.$queryRawUnsafe<(Omit<AccountSum, 'balance'> & { declared: bigint; total: bigint; settled: bigint })[]>(
    `WITH period_lines AS (
       SELECT l.entry_id, a.number, a.name, a.type, a.vat_code, l.debit - l.credit AS balance
         FROM journal_lines l
         JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
         JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
        WHERE l.company_id = $1::uuid AND e.status = 'committed' AND ${ENTRY_VISIBLE_SQL} AND e.date BETWEEN $2::date AND $3::date),
     settlements AS (SELECT entry_id FROM period_lines GROUP BY entry_id HAVING ${SETTLEMENT_ENTRY_SQL})
     SELECT p.number, p.name, p.type, p.vat_code AS "vatCode",
            coalesce(sum(p.balance) FILTER (WHERE s.entry_id IS NULL), 0)::bigint AS declared,
            sum(p.balance)::bigint AS total,
            coalesce(sum(p.balance) FILTER (WHERE s.entry_id IS NOT NULL), 0)::bigint AS settled
       FROM period_lines p LEFT JOIN settlements s ON s.entry_id = p.entry_id
      GROUP BY p.number, p.name, p.type, p.vat_code
      ORDER BY p.number`,
    companyId,
    start,
    end,
  );
  const boxes = computeBoxes(rows.map((row) => ({ number: row.number, name: row.name, type: row.type, vatCode: row.vatCode, balance: Number(row.declared) })));
  const amountOf = (box: string) => boxes.find((b) => b.box === box)?.amount ?? 0;
  const net = VAT_BOXES.find((definition) => definition.box === '49')!.source as { add: readonly string[] };
  const outputVat = net.add.reduce((sum, box) => sum + amountOf(box), 0);
  const vatTotals = new Map(rows.filter((row) => VAT_ACCOUNTS.includes(row.number)).map((row) => [row.number, Number(row.total)]));
  const settled2650 = Number(rows.find((row) => row.number === VAT_SETTLEMENT_ACCOUNT)?.settled ?? 0n);
  return {
    boxes,
    outputVat,
    inputVat: amountOf('48'),
    netVat: amountOf('49'),
    settlement: settlementLines(vatTotals, settled2650, amountOf('49')),
  };
}

const figureColumns = (figures: Figures, now: Date) => ({
  boxes: figures.boxes as unknown as object[],
  outputVat: BigInt(figures.outputVat),
  inputVat: BigInt(figures.inputVat),
  netVat: BigInt(figures.netVat),
  settlement: figures.settlement as unknown as object[],
  generatedAt: now,
});

/**
 * The return for whole, locked accounting periods. An unsubmitted return of the same range is
 * replaced; once one is submitted, generating again makes a new version that corrects it.
 */
export async function generateVatReturn(ctx: OperationContext, companyId: string, body: VatReturnGenerateBody): Promise<VatReturn> {
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    await assertLockedPeriods(tx, companyId, body.period_start, body.period_end);
    // One generation per company at a time, so versions never collide.
    await tx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR UPDATE`;
    const figures = await figuresOf(tx, companyId, body.period_start, body.period_end);
    const range = { companyId, periodStart: toSqlDate(body.period_start), periodEnd: toSqlDate(body.period_end) };
    const latest = await tx.db.vatReturn.findFirst({ where: range, orderBy: { version: 'desc' } });
    const data = figureColumns(figures, tx.services.now());
    const row =
      latest?.status === 'generated'
        ? await tx.db.vatReturn.update({ where: { id: latest.id }, data })
        : await tx.db.vatReturn.create({ data: { ...range, ...data, version: (latest?.version ?? 0) + 1, correctsId: latest?.id ?? null } });
    const vatReturn = toVatReturn(row);
    await emitEvent(tx, companyId, 'vat_return.generated', vatReturn, null);
    return vatReturn;
  });
}

const declaredBoxes = (boxes: readonly { box: string; amount: number }[]): string => JSON.stringify(boxes.map((box) => [box.box, box.amount]));

/**
 * Records the filing, freezes it and books its momsavräkning in the same transaction: the VAT
 * accounts to 2650 and the dropped öre to 3740, on the period's last day (the period stays locked:
 * this is the return's own closing entry, as year-end closing is the year's). No agency is called.
 */
export async function submitVatReturn(ctx: OperationContext, companyId: string, id: string): Promise<VatReturn> {
  requireScope(ctx, 'compliance:write');
  return withTransaction(ctx, async (tx) => {
    const [locked] = await tx.db.$queryRaw<{ status: string }[]>`
      SELECT status FROM vat_returns WHERE company_id = ${companyId}::uuid AND id = ${id}::uuid FOR UPDATE`;
    if (!locked) throw notFound();
    if (locked.status === 'submitted') throw new DomainError('FILING_SUBMITTED', { message: 'This VAT return was already submitted.' });
    const current = toVatReturn(await readVatRow(tx, companyId, id));
    await assertLockedPeriods(tx, companyId, current.period_start, current.period_end);
    const figures = await figuresOf(tx, companyId, current.period_start, current.period_end);
    if (declaredBoxes(figures.boxes) !== declaredBoxes(current.boxes)) {
      throw new DomainError('CONFLICT', {
        message: 'The books of the period changed after this return was generated; generate it again, then submit.',
      });
    }
    const [year] = await tx.db.$queryRaw<{ closed: boolean }[]>`
      SELECT closed_at IS NOT NULL AS closed FROM fiscal_years
       WHERE company_id = ${companyId}::uuid AND import_id IS NULL AND start_date <= ${current.period_end}::date AND end_date >= ${current.period_end}::date`;
    if (year?.closed && figures.settlement.length > 0) {
      throw new DomainError('FISCAL_YEAR_CLOSED', {
        message: `The fiscal year containing ${current.period_end} is closed; the settlement entry cannot be booked there.`,
      });
    }
    const entry =
      figures.settlement.length === 0
        ? null
        : await bookEntry(
            tx,
            companyId,
            {
              date: current.period_end,
              description: `Momsavräkning ${current.period_start} – ${current.period_end}`,
              series: 'A',
              lines: figures.settlement.map((line) => ({ ...line, description: null })),
            },
            { allowLockedPeriod: true },
          );
    const row = await tx.db.vatReturn.update({
      where: { id },
      data: {
        status: 'submitted',
        submittedAt: tx.services.now(),
        settlementEntryId: entry?.id ?? null,
        settlement: figures.settlement as unknown as object[],
      },
    });
    const vatReturn = toVatReturn(row);
    await emitEvent(tx, companyId, 'vat_return.submitted', vatReturn, { status: 'generated', submitted_at: null, settlement: current.settlement });
    return vatReturn;
  });
}
