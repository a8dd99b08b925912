import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { SalaryRun, SalaryRunCreateBody, SalaryRunListQuery } from '../../../domain/payroll/schemas.ts';
import {
  approveSalaryRun as approve,
  bookSalaryRun as book,
  cancelSalaryRun as cancel,
  createSalaryRun as create,
  getSalaryRun as get,
  listSalaryRuns as list,
} from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID, ENTRY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

const CompanyParams = z.object({ companyId: CompanyId });
const RunParams = z.object({ companyId: CompanyId, salaryRunId: z.uuid().describe('Salary run id (uuid), from listSalaryRuns.') });
const runParams = { companyId: COMPANY_ID, salaryRunId: salaryRunExample.id };

const transition = {
  group: 'payroll',
  method: 'POST',
  auth: { scope: 'payroll:read', also: ['companies:write'] },
  idempotent: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'salary_run',
  input: { params: RunParams },
  output: SalaryRun,
  status: 200,
  surfaces: ['api', 'mcp', 'cli'],
} as const;

export const listSalaryRuns = defineOperation({
  id: 'listSalaryRuns',
  errors: [],
  group: 'payroll',
  method: 'GET',
  path: '/companies/{companyId}/salary-runs',
  summary: 'List salary runs',
  description: 'Salary runs newest month first, optionally of one status.',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: SalaryRunListQuery },
  output: z.object({ salary_runs: z.array(SalaryRun) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { status: 'draft' }, response: { salary_runs: [salaryRunExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => ({ data: { salary_runs: await list(ctx, params.companyId, query.status) } }),
});

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

export const createSalaryRun = defineOperation({
  id: 'createSalaryRun',
  group: 'payroll',
  method: 'POST',
  path: '/companies/{companyId}/salary-runs',
  summary: 'Create a salary run',
  description:
    "Drafts the month's run: per employee employed that month, gross pay, preliminary tax, employer contributions (dated rate table) and net pay. Emits salary_run.created.",
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

export const approveSalaryRun = defineOperation({
  ...transition,
  id: 'approveSalaryRun',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}/approve',
  summary: 'Approve a salary run',
  description: 'Approves a draft run for payout; its lines are fixed from now on. Emits salary_run.approved.',
  risk: 'L2',
  reversible: true,
  errors: ['SALARY_RUN_STATE'],
  examples: { params: runParams, response: { ...salaryRunExample, status: 'approved', approved_at: '2026-11-21T09:00:00.000Z' } },
  handler: async (ctx, { params }) => ({ data: await approve(ctx, params.companyId, params.salaryRunId) }),
});

export const bookSalaryRun = defineOperation({
  ...transition,
  id: 'bookSalaryRun',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}/book',
  summary: 'Book a salary run',
  description:
    'Books an approved run as one committed entry in series L on the pay date (7210, 7510 / 2710, 2731, 1930); the run is then immutable. Emits salary_run.booked.',
  risk: 'L3',
  reversible: false,
  errors: ['SALARY_RUN_STATE', 'NO_FISCAL_YEAR', 'PERIOD_LOCKED', 'FISCAL_YEAR_CLOSED', 'ACCOUNT_UNKNOWN', 'ACCOUNT_INACTIVE'],
  examples: {
    params: runParams,
    response: {
      ...salaryRunExample,
      status: 'booked',
      journal_entry_id: ENTRY_ID,
      approved_at: '2026-11-21T09:00:00.000Z',
      booked_at: '2026-11-25T07:00:00.000Z',
    },
  },
  handler: async (ctx, { params }) => ({ data: await book(ctx, params.companyId, params.salaryRunId) }),
});

export const cancelSalaryRun = defineOperation({
  ...transition,
  id: 'cancelSalaryRun',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}/cancel',
  summary: 'Cancel a salary run',
  description: 'Cancels a draft or approved run (not a booked one), freeing the month for a new run. Emits salary_run.cancelled.',
  risk: 'L2',
  reversible: false,
  errors: ['SALARY_RUN_STATE'],
  examples: { params: runParams, response: { ...salaryRunExample, status: 'cancelled', cancelled_at: '2026-11-21T09:00:00.000Z' } },
  handler: async (ctx, { params }) => ({ data: await cancel(ctx, params.companyId, params.salaryRunId) }),
});
