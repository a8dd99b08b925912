import { ReportRangeQuery, TrialBalance } from '../../../domain/reports/schemas.ts';
import { getTrialBalance as trialBalance, trialBalancePdf } from '../../../domain/reports/reports.ts';
import { trialBalanceExample } from '../../../domain/reports/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';
import { RANGE_HELP, ERRORS, examples, PDF } from './statement-traits.ts';

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
  produces: [{ ...PDF, render: (ctx, { params, query }, language) => trialBalancePdf(ctx, params.companyId, query, language) }],
  handler: async (ctx, { params, query }) => ({ data: await trialBalance(ctx, params.companyId, query) }),
});
