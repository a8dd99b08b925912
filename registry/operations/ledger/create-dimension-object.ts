import { DimensionObject, DimensionObjectCreateBody } from '../../../domain/ledger/dimension-schemas.ts';
import { createDimensionObject as create } from '../../../domain/ledger/dimensions.ts';
import { COMPANY_ID, dimensionObjectExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { DimensionParams } from './params.ts';

export const createDimensionObject = defineOperation({
  id: 'createDimensionObject',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/dimensions/{dimensionNumber}/objects',
  summary: 'Add an object to a dimension',
  description: 'Adds an object (e.g. a cost centre); its code is fixed once created.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  auditTarget: 'dimension_object',
  errors: ['OBJECT_EXISTS'],
  input: { params: DimensionParams, body: DimensionObjectCreateBody },
  output: DimensionObject,
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID, dimensionNumber: '1' },
    body: { code: 'Nord', name: 'Kontor Nord' },
    response: dimensionObjectExample,
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, Number(params.dimensionNumber), body) }),
});
