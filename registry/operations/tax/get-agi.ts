import { Agi } from '../../../domain/payroll/schemas.ts';
import { getAgi as get } from '../../../domain/payroll/agi.ts';
import { agiFile } from '../../../domain/payroll/agi-file.ts';
import { XML_MEDIA_TYPE } from '../../../domain/tax/filing-identity.ts';
import { agiExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { AgiParams } from './params.ts';

export const getAgi = defineOperation({
  id: 'getAgi',
  errors: ['FILING_INCOMPLETE'],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/agis/{agiId}',
  summary: 'Get an employer declaration',
  description: 'One AGI, identity numbers masked. Accept: application/xml for the file to upload (full numbers).',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: AgiParams },
  output: Agi,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, agiId: agiExample.id }, response: agiExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ mediaType: XML_MEDIA_TYPE, render: (ctx, { params }) => agiFile(ctx, params.companyId, params.agiId) }],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.agiId) }),
});
