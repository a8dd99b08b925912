import { Company } from '../../../domain/companies/schemas.ts';
import { getCompany as get } from '../../../domain/companies/get.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const getCompany = defineOperation({
  id: 'getCompany',
  group: 'companies',
  method: 'GET',
  path: '/companies/{companyId}',
  summary: 'Get a company',
  description: 'One company: name, organisation number, legal form and whether it is live or sandbox.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { params: CompanyParams },
  output: Company,
  status: 200,
  examples: {
    params: { companyId: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10' },
    response: {
      id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10',
      name: 'Demo Bokföring AB',
      org_number: '556677-8899',
      entity_type: 'aktiebolag',
      livemode: false,
      created_at: '2026-11-01T09:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
    },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId) }),
});
