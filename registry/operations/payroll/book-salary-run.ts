import { bookSalaryRun as book } from '../../../domain/payroll/salary-runs.ts';
import { salaryRunExample } from '../../../domain/payroll/examples.ts';
import { ENTRY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { runParams } from './params.ts';
import { transition } from './traits.ts';

export const bookSalaryRun = defineOperation({
  ...transition,
  id: 'bookSalaryRun',
  path: '/companies/{companyId}/salary-runs/{salaryRunId}/book',
  summary: 'Book a salary run',
  description: 'Books an approved run as one committed entry in series L on the pay date (7210, 7510 / 2710, 2731, 1930); the run is then immutable.',
  emits: ['salary_run.booked', 'journal_entry.committed'],
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
