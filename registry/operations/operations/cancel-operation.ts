import { Operation } from '../../../domain/operations/schemas.ts';
import { cancelOperation as cancel } from '../../../domain/operations/store.ts';
import { queuedOperationExample } from '../../../domain/operations/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { OperationParams, exampleParams } from './params.ts';

export const cancelOperation = defineOperation({
  id: 'cancelOperation',
  group: 'operations',
  method: 'POST',
  path: '/companies/{companyId}/operations/{operationId}/cancel',
  summary: 'Cancel an operation',
  description: 'A queued operation is cancelled at once; a running one is asked to stop and ends cancelled at its next checkpoint. Finished ones answer 409.',
  emits: ['operation.cancelled'],
  auth: { scope: 'operations:write' },
  risk: 'L1',
  idempotent: true,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'operation',
  errors: ['OPERATION_FINISHED'],
  input: { params: OperationParams },
  output: Operation,
  status: 200,
  examples: { params: exampleParams, response: { ...queuedOperationExample, status: 'cancelled', finished_at: '2026-11-14T10:00:02.000Z' } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p }) => ({ data: await cancel(ctx, p.companyId, p.operationId) }),
});
