import { DimensionObject, DimensionObjectUpdateBody } from '../../../domain/ledger/dimension-schemas.ts';
import { updateDimensionObject as update } from '../../../domain/ledger/dimensions.ts';
import { COMPANY_ID, dimensionObjectExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { DimensionObjectParams } from './params.ts';

export const updateDimensionObject = defineOperation({
  id: 'updateDimensionObject',
  group: 'ledger',
  method: 'PATCH',
  path: '/companies/{companyId}/dimensions/{dimensionNumber}/objects/{objectCode}',
  summary: 'Update an object',
  description: 'Renames or (de)activates an object; inactive objects take no new lines.',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update'],
  auditTarget: 'dimension_object',
  errors: [],
  input: { params: DimensionObjectParams, body: DimensionObjectUpdateBody },
  output: DimensionObject,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, dimensionNumber: '1', objectCode: 'Nord' },
    body: { active: false },
    response: { ...dimensionObjectExample, active: false },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await update(ctx, params.companyId, Number(params.dimensionNumber), params.objectCode, body) }),
});
