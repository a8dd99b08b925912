import { cancelSalaryRun as cancel } from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { runParams } from './params.ts';
import { transition } from './traits.ts';

export const cancelSalaryRun = defineOperation({
  ...transition,
  id: 'cancelSalaryRun',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}/cancel',
  summary: 'Cancel a salary run',
  description: 'Cancels a draft or approved run (not a booked one), freeing the month for a new run.',
  emits: ['salary_run.cancelled'],
  risk: 'L2',
  reversible: false,
  errors: ['SALARY_RUN_STATE'],
  examples: { params: runParams, response: { ...salaryRunExample, status: 'cancelled', cancelled_at: '2026-11-21T09:00:00.000Z' } },
  handler: async (ctx, { params }) => ({ data: await cancel(ctx, params.companyId, params.salaryRunId) }),
});
