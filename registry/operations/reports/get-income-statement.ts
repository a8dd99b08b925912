import { IncomeStatement, ReportRangeQuery } from '../../../domain/reports/schemas.ts';
import { getIncomeStatement as incomeStatement, incomeStatementPdf } from '../../../domain/reports/reports.ts';
import { incomeStatementExample } from '../../../domain/reports/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';
import { RANGE_HELP, ERRORS, examples, PDF } from './statement-traits.ts';

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
  produces: [{ ...PDF, render: (ctx, { params, query }, language) => incomeStatementPdf(ctx, params.companyId, query, language) }],
  handler: async (ctx, { params, query }) => ({ data: await incomeStatement(ctx, params.companyId, query) }),
});
