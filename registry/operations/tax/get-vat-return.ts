import { VatReturn } from '../../../domain/tax/schemas.ts';
import { getVatReturn as get } from '../../../domain/tax/vat.ts';
import { vatReturnExample } from '../../../domain/tax/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { VatParams } from './params.ts';

export const getVatReturn = defineOperation({
  id: 'getVatReturn',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/vat-returns/{vatReturnId}',
  summary: 'Get a VAT return',
  description: 'One VAT return with each box and the accounts and sums it came from.',
  auth: { scope: 'compliance:read' },
  ...READ_ONLY,
  input: { params: VatParams },
  output: VatReturn,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, vatReturnId: vatReturnExample.id }, response: vatReturnExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.vatReturnId) }),
});
