import { z } from 'zod';
import { AccountNumber, Ore } from '../ledger/schemas.ts';
import { DimensionNumberParam, ObjectCode } from '../ledger/dimension-schemas.ts';
import { PaginationQuery } from '../kernel/pagination.ts';
import { BooksDate } from '../kernel/books-dates.ts';

/**
 * The public shapes of the reports. Amounts are integer öre. Account rows carry signed balances
 * the way SIE and every Swedish ledger print them: debit positive, credit negative. Statements
 * (income statement, balance sheet) present amounts the way they are read instead — revenue and
 * liabilities positive — and say so on each field.
 */

const IsoDate = BooksDate;

/** Öre that may be negative (a credit balance, a loss); the enclosing object says which sign means what. */
export const SignedOre = z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/** Sums are bigint in SQL; JSON carries them as integers, exact up to 2^53 öre (90 trillion kronor). */
export function toOre(amount: bigint): number {
  if (amount > BigInt(Number.MAX_SAFE_INTEGER) || amount < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(`amount ${amount} öre exceeds what a JSON integer carries exactly`);
  }
  return Number(amount);
}

export const ReportRangeQuery = z.strictObject({
  from: IsoDate.optional().describe('First day of the report, YYYY-MM-DD, inclusive; give it with to.'),
  to: IsoDate.optional().describe('Last day of the report, inclusive, in the same fiscal year as from.'),
  fiscal_year_id: z
    .uuid()
    .optional()
    .describe('A whole fiscal year instead of from/to (ids from listFiscalYears). With neither: the fiscal year containing today.'),
  dimension: DimensionNumberParam.optional().describe('With object: only lines carrying that object.'),
  object: ObjectCode.optional(),
});
export type ReportRangeQuery = z.infer<typeof ReportRangeQuery>;

/**
 * A balance sheet is as of a date (ÅRL 3 kap. 1 §: assets, provisions, liabilities and equity "on
 * the balance sheet date"): `to` alone is enough, and the comparison column is the start of its
 * fiscal year. `from` with it moves that column to the start of from instead.
 */
export const BalanceSheetQuery = ReportRangeQuery.extend({
  from: IsoDate.optional().describe('Optional, with to: the start column is the balance at the start of from. Default: the start of the fiscal year of to.'),
  to: IsoDate.optional().describe('The date the balance sheet is as of, inclusive (alone is enough).'),
});

export const ReportPeriod = z
  .object({
    from: IsoDate,
    to: IsoDate,
    fiscal_year: z.object({ id: z.uuid(), start_date: IsoDate, end_date: IsoDate }),
  })
  .describe('The dates the report covers, inclusive, and the fiscal year they lie in.');
export type ReportPeriod = z.infer<typeof ReportPeriod>;

const Opening = SignedOre.describe(
  'Balance before from, debit positive: all earlier committed lines for balance-sheet accounts (classes 1-2), lines since the fiscal year began for result accounts (3-8).',
);
const Closing = SignedOre.describe('opening_balance + period_debit - period_credit.');

export const AccountBalance = z.object({
  account: AccountNumber,
  name: z.string(),
  opening_balance: Opening,
  period_debit: Ore.describe('Sum of committed debits from from to to.'),
  period_credit: Ore.describe('Sum of committed credits from from to to.'),
  closing_balance: Closing,
});
export type AccountBalance = z.infer<typeof AccountBalance>;

export const BalanceTotals = z
  .object({ opening_balance: SignedOre, period_debit: Ore, period_credit: Ore, closing_balance: SignedOre })
  .describe('Sums over every row; a balanced ledger has period_debit = period_credit.');
export type BalanceTotals = z.infer<typeof BalanceTotals>;

export const AccountBalances = z.object({
  period: ReportPeriod,
  accounts: z.array(AccountBalance).describe('Accounts with an opening balance or movement in the period, in number order.'),
  totals: BalanceTotals,
});
export type AccountBalances = z.infer<typeof AccountBalances>;

export const TrialBalance = z.object({
  period: ReportPeriod,
  accounts: z.array(AccountBalance),
  classes: z.array(BalanceTotals.extend({ class: z.string().regex(/^[1-9]$/), name: z.string() })).describe('Subtotals per BAS account class (first digit).'),
  totals: BalanceTotals,
  balanced: z.boolean().describe('Whether the period debits equal the period credits.'),
});
export type TrialBalance = z.infer<typeof TrialBalance>;

const StatementAmount = SignedOre.describe('Credit minus debit for the period: revenue positive, costs negative.');

export const StatementSection = z.object({
  key: z.string().describe('Stable identifier of the section, e.g. "operating_income".'),
  name: z.string().describe('Heading as printed (Swedish, as in the BAS statement layout).'),
  accounts: z.array(z.object({ account: AccountNumber, name: z.string(), amount: StatementAmount })),
  total: StatementAmount,
});

export const IncomeStatement = z.object({
  period: ReportPeriod,
  sections: z.array(StatementSection).describe('Classes 3-8 in the BAS order; sections without movement are left out.'),
  operating_result: SignedOre.describe('Rörelseresultat: accounts 3000-7999.'),
  result_after_financial_items: SignedOre.describe('Resultat efter finansiella poster: accounts 3000-8799.'),
  result: SignedOre.describe('Årets resultat for the period: every result account, 3000-8999. Positive is a profit.'),
});
export type IncomeStatement = z.infer<typeof IncomeStatement>;

export const BalanceSheetSection = z
  .object({
    key: z.string(),
    name: z.string(),
    accounts: z.array(z.object({ account: AccountNumber, name: z.string(), opening_balance: SignedOre, closing_balance: SignedOre })),
    opening_total: SignedOre,
    total: SignedOre,
  })
  .describe('Öre at from and at to; assets as debit minus credit, equity and liabilities as credit minus debit.');

export const BalanceSheet = z.object({
  period: ReportPeriod,
  assets: z.object({ sections: z.array(BalanceSheetSection), total: SignedOre }),
  equity_and_liabilities: z.object({
    sections: z.array(BalanceSheetSection),
    result: z
      .object({
        fiscal_year: SignedOre.describe('Classes 3-8 from the fiscal year start to to, credit minus debit.'),
        earlier_years: SignedOre.describe("Earlier years' results no year-end closing has moved to equity yet."),
      })
      .describe('Results not yet booked to equity.'),
    total: SignedOre,
  }),
  totals: z
    .object({
      assets: SignedOre,
      equity: SignedOre.describe('Accounts 2000-2099.'),
      liabilities: SignedOre.describe('Accounts 2100-2999.'),
      result: SignedOre,
      equity_and_liabilities: SignedOre.describe('equity + liabilities + result.'),
    })
    .describe('Öre at to.'),
  balanced: z.boolean().describe('assets = equity_and_liabilities.'),
});
export type BalanceSheet = z.infer<typeof BalanceSheet>;

export const GeneralLedgerQuery = ReportRangeQuery.extend({
  account: AccountNumber.optional().describe('Only this account.'),
  account_from: AccountNumber.optional().describe('Lowest account number to include.'),
  account_to: AccountNumber.optional().describe('Highest account number to include.'),
}).extend(PaginationQuery.shape);
export type GeneralLedgerQuery = z.infer<typeof GeneralLedgerQuery>;

export const GeneralLedgerLine = z.object({
  account: AccountNumber,
  account_name: z.string(),
  date: IsoDate,
  voucher: z.string().describe('Series and number of the entry, e.g. "A12".'),
  entry_id: z.uuid(),
  line: z.number().int().positive().describe('Line number within the entry.'),
  description: z.string().describe("The line's description, or the entry's when the line has none."),
  debit: Ore,
  credit: Ore,
  balance: SignedOre.describe('Running balance of the account after this line, debit positive, starting from its opening balance.'),
});
export type GeneralLedgerLine = z.infer<typeof GeneralLedgerLine>;

export const GeneralLedger = z.object({
  period: ReportPeriod,
  lines: z.array(GeneralLedgerLine).describe('Committed lines by account, then date, voucher and line.'),
});
export type GeneralLedger = z.infer<typeof GeneralLedger>;
