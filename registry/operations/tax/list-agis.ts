import { z } from 'zod';
import { Agi, AgiListQuery } from '../../../domain/payroll/schemas.ts';
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
  description: 'Employer declarations (AGI), newest month first, every version; optionally of one month or months from-to. Cursor-paginated.',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: AgiListQuery },
  output: z.object({ agis: z.array(Agi) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { period: '2026-11' }, response: { agis: [agiExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { agis, pagination } = await list(ctx, params.companyId, query);
    return { data: { agis }, pagination };
  },
});
