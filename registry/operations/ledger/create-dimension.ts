import { Dimension, DimensionCreateBody } from '../../../domain/ledger/dimension-schemas.ts';
import { createDimension as create } from '../../../domain/ledger/dimensions.ts';
import { COMPANY_ID, dimensionExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const createDimension = defineOperation({
  id: 'createDimension',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/dimensions',
  summary: 'Add a dimension',
  description: 'Adds a dimension; number and parent are fixed once created.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  auditTarget: 'dimension',
  errors: ['DIMENSION_EXISTS', 'DIMENSION_UNKNOWN'],
  input: { params: CompanyParams, body: DimensionCreateBody },
  output: Dimension,
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID },
    body: { number: 1, name: 'Kostnadsställe' },
    response: dimensionExample,
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});
