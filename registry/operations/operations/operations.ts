import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { Operation, OperationListQuery } from '../../../domain/operations/schemas.ts';
import { cancelOperation as cancel, deleteOperation as remove, getOperation as get, listOperations as list } from '../../../domain/operations/store.ts';
import { OPERATION_ID, operationExample, queuedOperationExample } from '../../../domain/operations/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

const CompanyParams = z.object({ companyId: CompanyId });
export const OperationParams = z.object({
  companyId: CompanyId,
  operationId: z.uuid().describe('Operation id (uuid), from the 202 answer that started it or listOperations.'),
});
const params = { companyId: COMPANY_ID, operationId: OPERATION_ID };

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
  examples: { params, response: operationExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p }) => ({ data: await get(ctx, p.companyId, p.operationId) }),
});

export const cancelOperation = defineOperation({
  id: 'cancelOperation',
  group: 'operations',
  method: 'POST',
  path: '/companies/{companyId}/operations/{operationId}/cancel',
  summary: 'Cancel an operation',
  description:
    'A queued operation is cancelled at once (operation.cancelled); a running one is asked to stop and ends cancelled at its next checkpoint. Finished ones answer 409.',
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
  examples: { params, response: { ...queuedOperationExample, status: 'cancelled', finished_at: '2026-11-14T10:00:02.000Z' } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p }) => ({ data: await cancel(ctx, p.companyId, p.operationId) }),
});

export const deleteOperation = defineOperation({
  id: 'deleteOperation',
  group: 'operations',
  method: 'DELETE',
  path: '/companies/{companyId}/operations/{operationId}',
  summary: 'Delete an operation',
  description: 'Deletes a queued or running operation (a runner holding it stops at its next checkpoint). Finished operations are the record and stay.',
  auth: { scope: 'operations:write' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['delete'],
  auditTarget: 'operation',
  errors: ['OPERATION_FINISHED'],
  input: { params: OperationParams },
  output: null,
  status: 204,
  examples: { params },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params: p }) => {
    await remove(ctx, p.companyId, p.operationId);
    return { data: null };
  },
});
