import { z } from 'zod';
import { Agi, Month } from '../../../domain/payroll/schemas.ts';
import { listAgis as list } from '../../../domain/payroll/agi.ts';
import { agiExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listAgis = defineOperation({
  id: 'listAgis',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/agis',
  summary: 'List employer declarations',
  description: 'Employer declarations (AGI), newest month first, every version; optionally of one month.',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: z.strictObject({ period: Month.optional() }) },
  output: z.object({ agis: z.array(Agi) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { period: '2026-11' }, response: { agis: [agiExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => ({ data: { agis: await list(ctx, params.companyId, query.period) } }),
});
