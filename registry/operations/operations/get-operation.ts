import { Operation } from '../../../domain/operations/schemas.ts';
import { getOperation as get } from '../../../domain/operations/store.ts';
import { operationExample } from '../../../domain/operations/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { OperationParams, exampleParams } from './params.ts';

export const getOperation = defineOperation({
  id: 'getOperation',
  errors: [],
  group: 'operations',
  method: 'GET',
  path: '/companies/{companyId}/operations/{operationId}',
  summary: 'Get an operation',
  description: 'One operation: status, progress, and its result or error once finished. Poll this after a 202.',
  auth: { scope: 'operations:read' },
  ...READ_ONLY,
  input: { params: OperationParams },
  output: Operation,
  status: 200,
  examples: { params: exampleParams, response: operationExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p }) => ({ data: await get(ctx, p.companyId, p.operationId) }),
});
