import { Dimension, DimensionUpdateBody } from '../../../domain/ledger/dimension-schemas.ts';
import { updateDimension as update } from '../../../domain/ledger/dimensions.ts';
import { COMPANY_ID, dimensionExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { DimensionParams } from './params.ts';

export const updateDimension = defineOperation({
  id: 'updateDimension',
  group: 'ledger',
  method: 'PATCH',
  path: '/companies/{companyId}/dimensions/{dimensionNumber}',
  summary: 'Rename a dimension',
  description: 'Renames a dimension.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update'],
  auditTarget: 'dimension',
  errors: [],
  input: { params: DimensionParams, body: DimensionUpdateBody },
  output: Dimension,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, dimensionNumber: '1' },
    body: { name: 'Resultatenhet' },
    response: { ...dimensionExample, name: 'Resultatenhet' },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await update(ctx, params.companyId, Number(params.dimensionNumber), body) }),
});
