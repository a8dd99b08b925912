import type { z } from 'zod';
import { ENTRY_ID, FISCAL_YEAR_ID } from '../ledger/examples.ts';
import type { AccountBalance, AccountBalances, BalanceSheet, GeneralLedger, IncomeStatement, TrialBalance } from './schemas.ts';

/**
 * One small, consistent set of books for the examples OpenAPI and the docs print: November 2026
 * of a company that sold for 80 000 kr + 25 % VAT, bought supplies for 400 kr + VAT and paid a
 * salary of 30 000 kr. Every example is the same books seen through another report.
 */

const period = { from: '2026-11-01', to: '2026-11-30', fiscal_year: { id: FISCAL_YEAR_ID, start_date: '2026-01-01', end_date: '2026-12-31' } };

const rows: AccountBalance[] = [
  { account: '1510', name: 'Kundfordringar', opening_balance: 0, period_debit: 10_000_000, period_credit: 0, closing_balance: 10_000_000 },
  { account: '1930', name: 'Företagskonto / affärskonto', opening_balance: 12_500_000, period_debit: 0, period_credit: 3_050_000, closing_balance: 9_450_000 },
  { account: '2081', name: 'Aktiekapital', opening_balance: -2_500_000, period_debit: 0, period_credit: 0, closing_balance: -2_500_000 },
  {
    account: '2611',
    name: 'Utgående moms på försäljning inom Sverige, 25 %',
    opening_balance: 0,
    period_debit: 0,
    period_credit: 2_000_000,
    closing_balance: -2_000_000,
  },
  { account: '2641', name: 'Debiterad ingående moms', opening_balance: 0, period_debit: 10_000, period_credit: 0, closing_balance: 10_000 },
  {
    account: '3001',
    name: 'Försäljning inom Sverige, 25 % moms',
    opening_balance: -10_000_000,
    period_debit: 0,
    period_credit: 8_000_000,
    closing_balance: -18_000_000,
  },
  { account: '6110', name: 'Kontorsmateriel', opening_balance: 0, period_debit: 40_000, period_credit: 0, closing_balance: 40_000 },
  { account: '7210', name: 'Löner till tjänstemän', opening_balance: 0, period_debit: 3_000_000, period_credit: 0, closing_balance: 3_000_000 },
];

const totals = { opening_balance: 0, period_debit: 13_050_000, period_credit: 13_050_000, closing_balance: 0 };

export const accountBalancesExample: z.input<typeof AccountBalances> = { period, accounts: rows, totals };

export const trialBalanceExample: z.input<typeof TrialBalance> = {
  period,
  accounts: rows,
  classes: [
    { class: '1', name: 'Tillgångar', opening_balance: 12_500_000, period_debit: 10_000_000, period_credit: 3_050_000, closing_balance: 19_450_000 },
    { class: '2', name: 'Eget kapital och skulder', opening_balance: -2_500_000, period_debit: 10_000, period_credit: 2_000_000, closing_balance: -4_490_000 },
    { class: '3', name: 'Rörelsens intäkter', opening_balance: -10_000_000, period_debit: 0, period_credit: 8_000_000, closing_balance: -18_000_000 },
    { class: '6', name: 'Övriga externa kostnader', opening_balance: 0, period_debit: 40_000, period_credit: 0, closing_balance: 40_000 },
    { class: '7', name: 'Personal, avskrivningar m.m.', opening_balance: 0, period_debit: 3_000_000, period_credit: 0, closing_balance: 3_000_000 },
  ],
  totals,
  balanced: true,
};

export const incomeStatementExample: z.input<typeof IncomeStatement> = {
  period,
  sections: [
    {
      key: 'operating_income',
      name: 'Rörelsens intäkter',
      accounts: [{ account: '3001', name: 'Försäljning inom Sverige, 25 % moms', amount: 8_000_000 }],
      total: 8_000_000,
    },
    {
      key: 'other_external_expenses',
      name: 'Övriga externa kostnader',
      accounts: [{ account: '6110', name: 'Kontorsmateriel', amount: -40_000 }],
      total: -40_000,
    },
    { key: 'personnel', name: 'Personalkostnader', accounts: [{ account: '7210', name: 'Löner till tjänstemän', amount: -3_000_000 }], total: -3_000_000 },
  ],
  operating_result: 4_960_000,
  result_after_financial_items: 4_960_000,
  result: 4_960_000,
};

export const balanceSheetExample: z.input<typeof BalanceSheet> = {
  period,
  assets: {
    sections: [
      {
        key: 'receivables',
        name: 'Kortfristiga fordringar',
        accounts: [{ account: '1510', name: 'Kundfordringar', opening_balance: 0, closing_balance: 10_000_000 }],
        opening_total: 0,
        total: 10_000_000,
      },
      {
        key: 'cash_and_bank',
        name: 'Kassa och bank',
        accounts: [{ account: '1930', name: 'Företagskonto / affärskonto', opening_balance: 12_500_000, closing_balance: 9_450_000 }],
        opening_total: 12_500_000,
        total: 9_450_000,
      },
    ],
    total: 19_450_000,
  },
  equity_and_liabilities: {
    sections: [
      {
        key: 'equity',
        name: 'Eget kapital',
        accounts: [{ account: '2081', name: 'Aktiekapital', opening_balance: 2_500_000, closing_balance: 2_500_000 }],
        opening_total: 2_500_000,
        total: 2_500_000,
      },
      {
        key: 'current_liabilities',
        name: 'Kortfristiga skulder',
        accounts: [
          { account: '2611', name: 'Utgående moms på försäljning inom Sverige, 25 %', opening_balance: 0, closing_balance: 2_000_000 },
          { account: '2641', name: 'Debiterad ingående moms', opening_balance: 0, closing_balance: -10_000 },
        ],
        opening_total: 0,
        total: 1_990_000,
      },
    ],
    result: { fiscal_year: 14_960_000, earlier_years: 0 },
    total: 19_450_000,
  },
  totals: { assets: 19_450_000, equity: 2_500_000, liabilities: 1_990_000, result: 14_960_000, equity_and_liabilities: 19_450_000 },
  balanced: true,
};

export const generalLedgerExample: z.input<typeof GeneralLedger> = {
  period,
  lines: [
    {
      account: '1930',
      account_name: 'Företagskonto / affärskonto',
      date: '2026-11-12',
      voucher: 'A142',
      entry_id: ENTRY_ID,
      line: 3,
      description: 'Kontorsmaterial, Clas Ohlson',
      debit: 0,
      credit: 50_000,
      balance: 12_450_000,
    },
  ],
};
