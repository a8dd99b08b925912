import { SalaryRun } from '../../../domain/payroll/schemas.ts';
import { getSalaryRun as get } from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { RunParams, runParams } from './params.ts';

export const getSalaryRun = defineOperation({
  id: 'getSalaryRun',
  errors: [],
  group: 'payroll',
  method: 'GET',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}',
  summary: 'Get a salary run',
  description: 'One salary run with a line per employee (identity numbers masked).',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: RunParams },
  output: SalaryRun,
  status: 200,
  examples: { params: runParams, response: salaryRunExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.salaryRunId) }),
});
