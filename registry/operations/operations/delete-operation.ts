import { deleteOperation as remove } from '../../../domain/operations/store.ts';
import { defineOperation } from '../../define-operation.ts';
import { OperationParams, exampleParams } from './params.ts';

export const deleteOperation = defineOperation({
  id: 'deleteOperation',
  group: 'operations',
  method: 'DELETE',
  path: '/companies/{companyId}/operations/{operationId}',
  summary: 'Delete an operation',
  description:
    'Deletes a queued or running operation (a runner holding it stops at its next checkpoint). Finished operations are the record and stay. An SIE import that has begun writing is cancelled instead (409 CONFLICT), so its runner removes what it wrote.',
  auth: { scope: 'operations:write' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['delete'],
  auditTarget: 'operation',
  errors: ['OPERATION_FINISHED', 'CONFLICT'],
  input: { params: OperationParams },
  output: null,
  status: 204,
  examples: { params: exampleParams },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p }) => {
    await remove(ctx, p.companyId, p.operationId);
    return { data: null };
  },
});
