import { closingOf, isBalanceSheetAccount, type BalanceRow } from './balances.ts';
import {
  toOre,
  type AccountBalance,
  type AccountBalances,
  type BalanceSheet,
  type BalanceTotals,
  type IncomeStatement,
  type ReportPeriod,
  type TrialBalance,
} from './schemas.ts';

/**
 * The statements, built from the per-account sums SQL aggregated (balances.ts). Pure functions of
 * those rows: bigint arithmetic throughout, converted to JSON integers at the end.
 */

interface Range {
  key: string;
  name: string;
  /** First and last account number of the range, inclusive. */
  first: string;
  last: string;
}

/** The BAS account a number belongs to: its first four digits (a sub-account 19301 sits under 1930). */
const basAccount = (account: string): string => account.slice(0, 4);
const inRange = (account: string, range: Range): boolean => basAccount(account) >= range.first && basAccount(account) <= range.last;

/** BAS account classes (the first digit), as the trial balance subtotals them. */
export const ACCOUNT_CLASSES: readonly { class: string; name: string }[] = [
  { class: '1', name: 'Tillgångar' },
  { class: '2', name: 'Eget kapital och skulder' },
  { class: '3', name: 'Rörelsens intäkter' },
  { class: '4', name: 'Varor, material och tjänster' },
  { class: '5', name: 'Övriga externa kostnader' },
  { class: '6', name: 'Övriga externa kostnader' },
  { class: '7', name: 'Personal, avskrivningar m.m.' },
  { class: '8', name: 'Finansiella poster, bokslutsdispositioner och skatt' },
  { class: '9', name: 'Intern redovisning' },
];

/** Resultaträkning (kostnadsslagsindelad), in BAS order. */
export const INCOME_SECTIONS: readonly Range[] = [
  { key: 'operating_income', name: 'Rörelsens intäkter', first: '3000', last: '3999' },
  { key: 'goods_and_services', name: 'Råvaror, handelsvaror och köpta tjänster', first: '4000', last: '4999' },
  { key: 'other_external_expenses', name: 'Övriga externa kostnader', first: '5000', last: '6999' },
  { key: 'personnel', name: 'Personalkostnader', first: '7000', last: '7699' },
  { key: 'depreciation', name: 'Av- och nedskrivningar', first: '7700', last: '7899' },
  { key: 'other_operating_expenses', name: 'Övriga rörelsekostnader', first: '7900', last: '7999' },
  { key: 'financial_items', name: 'Finansiella poster', first: '8000', last: '8799' },
  { key: 'appropriations', name: 'Bokslutsdispositioner', first: '8800', last: '8899' },
  { key: 'tax', name: 'Skatter och årets resultat', first: '8900', last: '8999' },
];

/** Balansräkning, in BAS order. */
export const ASSET_SECTIONS: readonly Range[] = [
  { key: 'fixed_assets', name: 'Anläggningstillgångar', first: '1000', last: '1399' },
  { key: 'inventory', name: 'Varulager', first: '1400', last: '1499' },
  { key: 'receivables', name: 'Kortfristiga fordringar', first: '1500', last: '1799' },
  { key: 'short_term_investments', name: 'Kortfristiga placeringar', first: '1800', last: '1899' },
  { key: 'cash_and_bank', name: 'Kassa och bank', first: '1900', last: '1999' },
];
export const EQUITY_AND_LIABILITY_SECTIONS: readonly Range[] = [
  { key: 'equity', name: 'Eget kapital', first: '2000', last: '2099' },
  { key: 'untaxed_reserves', name: 'Obeskattade reserver', first: '2100', last: '2199' },
  { key: 'provisions', name: 'Avsättningar', first: '2200', last: '2299' },
  { key: 'long_term_liabilities', name: 'Långfristiga skulder', first: '2300', last: '2399' },
  { key: 'current_liabilities', name: 'Kortfristiga skulder', first: '2400', last: '2999' },
];

const sum = (values: readonly bigint[]): bigint => values.reduce((total, value) => total + value, 0n);

export const toAccountBalance = (row: BalanceRow): AccountBalance => ({
  account: row.account,
  name: row.name,
  opening_balance: toOre(row.opening),
  period_debit: toOre(row.debit),
  period_credit: toOre(row.credit),
  closing_balance: toOre(closingOf(row)),
});

function totalsOf(rows: readonly BalanceRow[]): BalanceTotals {
  return {
    opening_balance: toOre(sum(rows.map((row) => row.opening))),
    period_debit: toOre(sum(rows.map((row) => row.debit))),
    period_credit: toOre(sum(rows.map((row) => row.credit))),
    closing_balance: toOre(sum(rows.map(closingOf))),
  };
}

export function buildAccountBalances(period: ReportPeriod, rows: readonly BalanceRow[]): AccountBalances {
  return { period, accounts: rows.map(toAccountBalance), totals: totalsOf(rows) };
}

/** Råbalans: every account's balances, subtotals per class, and whether debits equal credits. */
export function buildTrialBalance(period: ReportPeriod, rows: readonly BalanceRow[]): TrialBalance {
  const classes = ACCOUNT_CLASSES.flatMap((accountClass) => {
    const members = rows.filter((row) => row.account.startsWith(accountClass.class));
    return members.length === 0 ? [] : [{ class: accountClass.class, name: accountClass.name, ...totalsOf(members) }];
  });
  const totals = totalsOf(rows);
  return { period, accounts: rows.map(toAccountBalance), classes, totals, balanced: totals.period_debit === totals.period_credit };
}

/** Resultaträkning for the period: credit minus debit per result account, so a profit is positive. */
export function buildIncomeStatement(period: ReportPeriod, rows: readonly BalanceRow[]): IncomeStatement {
  const resultRows = rows.filter((row) => !isBalanceSheetAccount(row.account) && (row.debit !== 0n || row.credit !== 0n));
  const amountOf = (row: BalanceRow): bigint => row.credit - row.debit;
  const upTo = (last: string): bigint => sum(resultRows.filter((row) => basAccount(row.account) <= last).map(amountOf));
  const sections = INCOME_SECTIONS.flatMap((section) => {
    const members = resultRows.filter((row) => inRange(row.account, section));
    if (members.length === 0) return [];
    return [
      {
        key: section.key,
        name: section.name,
        accounts: members.map((row) => ({ account: row.account, name: row.name, amount: toOre(amountOf(row)) })),
        total: toOre(sum(members.map(amountOf))),
      },
    ];
  });
  return {
    period,
    sections,
    operating_result: toOre(upTo('7999')),
    result_after_financial_items: toOre(upTo('8799')),
    result: toOre(upTo('8999')),
  };
}

/**
 * Balansräkning at `to`: assets (debit positive) against equity, liabilities and the results not
 * yet moved to equity (credit positive). Every committed entry balances, so the sum of all
 * debit-minus-credit balances is zero and assets = equity + liabilities + result exactly.
 */
export function buildBalanceSheet(period: ReportPeriod, rows: readonly BalanceRow[], resultBeforeYear: bigint): BalanceSheet {
  const sheetRows = rows.filter((row) => isBalanceSheetAccount(row.account));
  const sectionsOf = (ranges: readonly Range[], sign: 1n | -1n) =>
    ranges.flatMap((range) => {
      const members = sheetRows.filter((row) => inRange(row.account, range));
      if (members.length === 0) return [];
      return [
        {
          key: range.key,
          name: range.name,
          accounts: members.map((row) => ({
            account: row.account,
            name: row.name,
            opening_balance: toOre(sign * row.opening),
            closing_balance: toOre(sign * closingOf(row)),
          })),
          opening_total: toOre(sign * sum(members.map((row) => row.opening))),
          total: toOre(sign * sum(members.map(closingOf))),
        },
      ];
    });
  const closingIn = (first: string, last: string): bigint =>
    sum(sheetRows.filter((row) => inRange(row.account, { key: '', name: '', first, last })).map(closingOf));
  const assets = closingIn('1000', '1999');
  const equity = -closingIn('2000', '2099');
  const liabilities = -closingIn('2100', '2999');
  // Result accounts' closing balances run from the fiscal year's start (balances.ts), so their sum is the year's result.
  const yearResult = -sum(rows.filter((row) => !isBalanceSheetAccount(row.account)).map(closingOf));
  const earlierResult = -resultBeforeYear;
  const result = yearResult + earlierResult;
  const equityAndLiabilities = equity + liabilities + result;
  return {
    period,
    assets: { sections: sectionsOf(ASSET_SECTIONS, 1n), total: toOre(assets) },
    equity_and_liabilities: {
      sections: sectionsOf(EQUITY_AND_LIABILITY_SECTIONS, -1n),
      result: { fiscal_year: toOre(yearResult), earlier_years: toOre(earlierResult) },
      total: toOre(equityAndLiabilities),
    },
    totals: {
      assets: toOre(assets),
      equity: toOre(equity),
      liabilities: toOre(liabilities),
      result: toOre(result),
      equity_and_liabilities: toOre(equityAndLiabilities),
    },
    balanced: assets === equityAndLiabilities,
  };
}
