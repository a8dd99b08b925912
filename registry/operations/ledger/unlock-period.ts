import { unlockPeriod as unlock } from '../../../domain/ledger/periods.ts';
import { COMPANY_ID, periodExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { periodWrite } from './period-write.ts';

export const unlockPeriod = defineOperation({
  ...periodWrite,
  id: 'unlockPeriod',
  path: '/companies/{companyId}/periods/{periodId}/unlock',
  summary: 'Unlock a period',
  description: 'Reopens a locked month for commits; refused once its fiscal year is closed.',
  emits: ['period.unlocked'],
  errors: ['FISCAL_YEAR_CLOSED'],
  examples: {
    params: { companyId: COMPANY_ID, periodId: periodExample.id },
    response: { ...periodExample, status: 'open', locked_at: null },
  },
  handler: async (ctx, { params }) => ({ data: await unlock(ctx, params.companyId, params.periodId) }),
});
