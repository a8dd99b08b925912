import { SalaryRun, SalaryRunCreateBody } from '../../../domain/payroll/schemas.ts';
import { createSalaryRun as create } from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const createSalaryRun = defineOperation({
  id: 'createSalaryRun',
  group: 'payroll',
  method: 'POST',
  path: '/companies/{companyId}/salary-runs',
  summary: 'Create a salary run',
  description: "Drafts the month's run: per employee employed that month, gross pay, preliminary tax, employer contributions (dated rate table) and net pay.",
  emits: ['salary_run.created'],
  auth: { scope: 'payroll:read', also: ['companies:write'] },
  risk: 'L2',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'salary_run',
  errors: ['SALARY_RUN_EXISTS', 'NO_ACTIVE_EMPLOYEES'],
  input: { params: CompanyParams, body: SalaryRunCreateBody },
  output: SalaryRun,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { period: '2026-11' }, response: salaryRunExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});
