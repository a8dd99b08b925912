import { VatReturn } from '../../../domain/tax/schemas.ts';
import { getVatReturn as get } from '../../../domain/tax/vat.ts';
import { vatReturnFile } from '../../../domain/tax/eskd.ts';
import { XML_MEDIA_TYPE } from '../../../domain/tax/filing-identity.ts';
import { vatReturnExample } from '../../../domain/tax/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { VatParams } from './params.ts';

export const getVatReturn = defineOperation({
  id: 'getVatReturn',
  errors: ['FILING_INCOMPLETE'],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/vat-returns/{vatReturnId}',
  summary: 'Get a VAT return',
  description: 'One VAT return by box and account. Accept: application/xml for the eSKD file to upload to Skatteverket.',
  auth: { scope: 'compliance:read' },
  ...READ_ONLY,
  input: { params: VatParams },
  output: VatReturn,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, vatReturnId: vatReturnExample.id }, response: vatReturnExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ mediaType: XML_MEDIA_TYPE, render: (ctx, { params }) => vatReturnFile(ctx, params.companyId, params.vatReturnId) }],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.vatReturnId) }),
});
