import { BalanceSheet, BalanceSheetQuery } from '../../../domain/reports/schemas.ts';
import { balanceSheetPdf, getBalanceSheet as balanceSheet } from '../../../domain/reports/reports.ts';
import { balanceSheetExample } from '../../../domain/reports/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';
import { RANGE_HELP, ERRORS, examples, PDF } from './statement-traits.ts';

export const getBalanceSheet = defineOperation({
  id: 'getBalanceSheet',
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/reports/balance-sheet',
  summary: 'Get the balance sheet (balansräkning)',
  description:
    'Balance-sheet accounts (classes 1-2) at the start and end of the period in the BAS sections, the result not yet moved to equity; ' +
    `assets = equity + liabilities + result. to alone: as of that date. ${RANGE_HELP}`,
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: ERRORS,
  input: { params: CompanyParams, query: BalanceSheetQuery },
  output: BalanceSheet,
  status: 200,
  examples: { ...examples, response: balanceSheetExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ ...PDF, render: (ctx, { params, query }, language) => balanceSheetPdf(ctx, params.companyId, query, language) }],
  handler: async (ctx, { params, query }) => ({ data: await balanceSheet(ctx, params.companyId, query) }),
});
