import { approveSalaryRun as approve } from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { runParams } from './params.ts';
import { transition } from './traits.ts';

export const approveSalaryRun = defineOperation({
  ...transition,
  id: 'approveSalaryRun',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}/approve',
  summary: 'Approve a salary run',
  description: 'Approves a draft run for payout; its lines are fixed from now on.',
  emits: ['salary_run.approved'],
  risk: 'L2',
  reversible: true,
  errors: ['SALARY_RUN_STATE'],
  examples: { params: runParams, response: { ...salaryRunExample, status: 'approved', approved_at: '2026-11-21T09:00:00.000Z' } },
  handler: async (ctx, { params }) => ({ data: await approve(ctx, params.companyId, params.salaryRunId) }),
});
