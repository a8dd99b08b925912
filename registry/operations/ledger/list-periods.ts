import { z } from 'zod';
import { Period, PeriodListQuery } from '../../../domain/ledger/schemas.ts';
import { listPeriods as list } from '../../../domain/ledger/periods.ts';
import { COMPANY_ID, periodExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listPeriods = defineOperation({
  id: 'listPeriods',
  errors: [],
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/periods',
  summary: 'List accounting periods',
  description: 'Monthly periods in date order, optionally of one fiscal year, one status (open, locked) or those overlapping from-to. Cursor-paginated.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: PeriodListQuery },
  output: z.object({ periods: z.array(Period) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { fiscal_year_id: periodExample.fiscal_year_id }, response: { periods: [periodExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { periods, pagination } = await list(ctx, params.companyId, query);
    return { data: { periods }, pagination };
  },
});
