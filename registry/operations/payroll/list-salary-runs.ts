import { z } from 'zod';
import { SalaryRun, SalaryRunListQuery } from '../../../domain/payroll/schemas.ts';
import { listSalaryRuns as list } from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listSalaryRuns = defineOperation({
  id: 'listSalaryRuns',
  errors: [],
  group: 'payroll',
  method: 'GET',
  path: '/companies/{companyId}/salary-runs',
  summary: 'List salary runs',
  description: 'Salary runs newest month first, optionally of one status or months from-to. Cursor-paginated.',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: SalaryRunListQuery },
  output: z.object({ salary_runs: z.array(SalaryRun) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { status: 'draft' }, response: { salary_runs: [salaryRunExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { salary_runs, pagination } = await list(ctx, params.companyId, query);
    return { data: { salary_runs }, pagination };
  },
});
