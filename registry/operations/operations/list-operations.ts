import { z } from 'zod';
import { Operation, OperationListQuery } from '../../../domain/operations/schemas.ts';
import { listOperations as list } from '../../../domain/operations/store.ts';
import { operationExample } from '../../../domain/operations/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listOperations = defineOperation({
  id: 'listOperations',
  errors: [],
  group: 'operations',
  method: 'GET',
  path: '/companies/{companyId}/operations',
  summary: 'List operations',
  description: 'Long-running operations newest first, filtered by status or kind. Cursor-paginated.',
  auth: { scope: 'operations:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: OperationListQuery.extend(PaginationQuery.shape) },
  output: z.object({ operations: z.array(Operation) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { status: 'succeeded' }, response: { operations: [operationExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p, query }) => {
    const { operations, pagination } = await list(ctx, p.companyId, query);
    return { data: { operations }, pagination };
  },
});
