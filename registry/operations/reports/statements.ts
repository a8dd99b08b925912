import { AccountBalances, BalanceSheet, IncomeStatement, ReportRangeQuery, TrialBalance } from '../../../domain/reports/schemas.ts';
import {
  accountBalancesPdf,
  balanceSheetPdf,
  getAccountBalances as balances,
  getBalanceSheet as balanceSheet,
  getIncomeStatement as incomeStatement,
  getTrialBalance as trialBalance,
  incomeStatementPdf,
  trialBalancePdf,
} from '../../../domain/reports/reports.ts';
import { accountBalancesExample, balanceSheetExample, incomeStatementExample, trialBalanceExample } from '../../../domain/reports/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../ledger/params.ts';

/** Every statement reads committed entries only, for a date range in one fiscal year or a whole year, and prints as PDF too. */
const RANGE_HELP =
  'Only committed entries count. Choose the dates with from and to (inside one fiscal year) or fiscal_year_id; with neither, the fiscal year containing today. ' +
  'Send Accept: application/pdf for a printable PDF of the same report.';
const ERRORS = ['NO_FISCAL_YEAR'] as const;
const examples = { params: { companyId: COMPANY_ID }, query: { from: '2026-11-01', to: '2026-11-30' } };

export const getAccountBalances = defineOperation({
  id: 'getAccountBalances',
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/reports/account-balances',
  summary: 'Get account balances',
  description:
    'Per account: opening balance, period debit, period credit and closing balance (öre, debit positive), with a totals row; ' +
    `a balanced ledger has period_debit = period_credit. ${RANGE_HELP}`,
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: ERRORS,
  input: { params: CompanyParams, query: ReportRangeQuery },
  output: AccountBalances,
  status: 200,
  examples: { ...examples, response: accountBalancesExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ mediaType: 'application/pdf', render: (ctx, { params, query }) => accountBalancesPdf(ctx, params.companyId, query) }],
  handler: async (ctx, { params, query }) => ({ data: await balances(ctx, params.companyId, query) }),
});

export const getTrialBalance = defineOperation({
  id: 'getTrialBalance',
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/reports/trial-balance',
  summary: 'Get the trial balance (råbalans)',
  description: `Every account's opening balance, debits, credits and closing balance, subtotalled per BAS class, and whether debits equal credits. ${RANGE_HELP}`,
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: ERRORS,
  input: { params: CompanyParams, query: ReportRangeQuery },
  output: TrialBalance,
  status: 200,
  examples: { ...examples, response: trialBalanceExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ mediaType: 'application/pdf', render: (ctx, { params, query }) => trialBalancePdf(ctx, params.companyId, query) }],
  handler: async (ctx, { params, query }) => ({ data: await trialBalance(ctx, params.companyId, query) }),
});

export const getIncomeStatement = defineOperation({
  id: 'getIncomeStatement',
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/reports/income-statement',
  summary: 'Get the income statement (resultaträkning)',
  description:
    'Result accounts (classes 3-8) for the period in the BAS sections, revenue positive and costs negative, with operating result, result after ' +
    `financial items and the result. ${RANGE_HELP}`,
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: ERRORS,
  input: { params: CompanyParams, query: ReportRangeQuery },
  output: IncomeStatement,
  status: 200,
  examples: { ...examples, response: incomeStatementExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ mediaType: 'application/pdf', render: (ctx, { params, query }) => incomeStatementPdf(ctx, params.companyId, query) }],
  handler: async (ctx, { params, query }) => ({ data: await incomeStatement(ctx, params.companyId, query) }),
});

export const getBalanceSheet = defineOperation({
  id: 'getBalanceSheet',
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/reports/balance-sheet',
  summary: 'Get the balance sheet (balansräkning)',
  description:
    'Balance-sheet accounts (classes 1-2) at the start and end of the period in the BAS sections, with the result not yet moved to equity; ' +
    `assets = equity + liabilities + result. ${RANGE_HELP}`,
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: ERRORS,
  input: { params: CompanyParams, query: ReportRangeQuery },
  output: BalanceSheet,
  status: 200,
  examples: { ...examples, response: balanceSheetExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ mediaType: 'application/pdf', render: (ctx, { params, query }) => balanceSheetPdf(ctx, params.companyId, query) }],
  handler: async (ctx, { params, query }) => ({ data: await balanceSheet(ctx, params.companyId, query) }),
});
