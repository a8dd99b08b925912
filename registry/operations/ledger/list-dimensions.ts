import { z } from 'zod';
import { Dimension, DimensionListQuery } from '../../../domain/ledger/dimension-schemas.ts';
import { listDimensions as list } from '../../../domain/ledger/dimensions.ts';
import { COMPANY_ID, dimensionExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listDimensions = defineOperation({
  id: 'listDimensions',
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/dimensions',
  summary: 'List dimensions',
  description:
    "The company's dimensions (SIE #DIM: 1 cost centre, 6 project, 20+ own) in number order, optionally the sub-dimensions of one. Cursor-paginated.",
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { params: CompanyParams, query: DimensionListQuery },
  output: z.object({ dimensions: z.array(Dimension) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, response: { dimensions: [dimensionExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { dimensions, pagination } = await list(ctx, params.companyId, query);
    return { data: { dimensions }, pagination };
  },
});
