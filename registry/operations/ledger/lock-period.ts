import { lockPeriod as lock } from '../../../domain/ledger/periods.ts';
import { COMPANY_ID, periodExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { periodWrite } from './period-write.ts';

export const lockPeriod = defineOperation({
  ...periodWrite,
  id: 'lockPeriod',
  errors: [],
  path: '/companies/{companyId}/periods/{periodId}/lock',
  summary: 'Lock a period',
  description: 'Locks a month against commits (e.g. after VAT is reported). Locking a locked period changes nothing.',
  emits: ['period.locked'],
  examples: { params: { companyId: COMPANY_ID, periodId: periodExample.id }, response: periodExample },
  handler: async (ctx, { params }) => ({ data: await lock(ctx, params.companyId, params.periodId) }),
});
