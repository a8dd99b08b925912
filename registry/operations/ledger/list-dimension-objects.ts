import { z } from 'zod';
import { DimensionObject, DimensionObjectListQuery } from '../../../domain/ledger/dimension-schemas.ts';
import { listDimensionObjects as list } from '../../../domain/ledger/dimensions.ts';
import { COMPANY_ID, dimensionObjectExample } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { DimensionParams } from './params.ts';

export const listDimensionObjects = defineOperation({
  id: 'listDimensionObjects',
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/dimensions/{dimensionNumber}/objects',
  summary: "List a dimension's objects",
  description: 'Objects (SIE #OBJEKT) of one dimension in code order. Cursor-paginated.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { params: DimensionParams, query: DimensionObjectListQuery.extend(PaginationQuery.shape) },
  output: z.object({ objects: z.array(DimensionObject) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID, dimensionNumber: '1' }, response: { objects: [dimensionObjectExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { objects, pagination } = await list(ctx, params.companyId, Number(params.dimensionNumber), query);
    return { data: { objects }, pagination };
  },
});
