import type { OperationContext } from '../context.ts';

/**
 * Comparative figures (migration 20261129400001, docs/sie.md "Prior years"): an earlier program's
 * balances for a year before the company's books with us, as an SIE file's #RAR -1, -2, … and
 * their #IB, #UB and #RES gave them (SIE 4B §8). Figures, not vouchers.
 */
export const COMPARATIVE_KINDS = ['IB', 'UB', 'RES'] as const;
export type ComparativeKind = (typeof COMPARATIVE_KINDS)[number];

export interface ComparativeYear {
  start: string;
  end: string;
  /** Per account and kind, in account order (IB before UB before RES). */
  balances: { account: string; kind: ComparativeKind; amount: bigint }[];
}

/** The company's comparative year ending on `end`, with its figures, or null (pending imports' are not the company's yet). */
export async function comparativeYearEnding(ctx: OperationContext, companyId: string, end: string): Promise<ComparativeYear | null> {
  const [year] = await ctx.db.$queryRaw<{ start: string; end: string }[]>`
    SELECT start_date::text AS start, end_date::text AS end FROM comparative_years
     WHERE company_id = ${companyId}::uuid AND end_date = ${end}::date AND import_id IS NULL`;
  if (!year) return null;
  const balances = await ctx.db.$queryRaw<ComparativeYear['balances']>`
    SELECT account, kind, amount FROM comparative_balances
     WHERE company_id = ${companyId}::uuid AND year_start = ${year.start}::date
     ORDER BY account, array_position(${[...COMPARATIVE_KINDS]}::text[], kind)`;
  return { ...year, balances };
}
