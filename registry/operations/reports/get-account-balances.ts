import { AccountBalances, ReportRangeQuery } from '../../../domain/reports/schemas.ts';
import { accountBalancesPdf, getAccountBalances as balances } from '../../../domain/reports/reports.ts';
import { accountBalancesExample } from '../../../domain/reports/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';
import { RANGE_HELP, ERRORS, examples, PDF } from './statement-traits.ts';

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
  produces: [{ ...PDF, render: (ctx, { params, query }, language) => accountBalancesPdf(ctx, params.companyId, query, language) }],
  handler: async (ctx, { params, query }) => ({ data: await balances(ctx, params.companyId, query) }),
});
