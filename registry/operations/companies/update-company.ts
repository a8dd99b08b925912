import { Company, CompanyUpdateBody } from '../../../domain/companies/schemas.ts';
import { updateCompany as update } from '../../../domain/companies/update.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const updateCompany = defineOperation({
  id: 'updateCompany',
  group: 'companies',
  method: 'PATCH',
  path: '/companies/{companyId}',
  summary: 'Update a company',
  description: "Changes a company's display name or legal form. Send only the fields to change; an empty body is rejected.",
  emits: ['company.updated'],
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update'],
  auditTarget: 'company',
  errors: [],
  input: { params: CompanyParams, body: CompanyUpdateBody },
  output: Company,
  status: 200,
  examples: {
    params: { companyId: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10' },
    body: { name: 'Demo Bokföring AB' },
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
  handler: async (ctx, { params, body }) => ({ data: await update(ctx, params.companyId, body) }),
});
