import { z } from 'zod';
import { VatReturn, VatReturnListQuery } from '../../../domain/tax/schemas.ts';
import { listVatReturns as list } from '../../../domain/tax/vat.ts';
import { vatReturnExample } from '../../../domain/tax/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listVatReturns = defineOperation({
  id: 'listVatReturns',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/vat-returns',
  summary: 'List VAT returns',
  description: 'VAT returns, newest period first, every version; optionally of one status or overlapping from-to. Cursor-paginated.',
  auth: { scope: 'compliance:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: VatReturnListQuery },
  output: z.object({ vat_returns: z.array(VatReturn) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { from: '2026-01-01', to: '2026-12-31' }, response: { vat_returns: [vatReturnExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { vat_returns, pagination } = await list(ctx, params.companyId, query);
    return { data: { vat_returns }, pagination };
  },
});
