import { z } from 'zod';
import { Operation } from '../../../domain/operations/schemas.ts';
import { enqueueOperation } from '../../../domain/operations/store.ts';
import { checkRecoverable, RecoverableStatus } from '../../../domain/operations/jobs/recover-deliveries.ts';
import { recoverWebhookDeliveriesKind } from '../../../domain/operations/kinds/recover-webhook-deliveries.ts';
import { queuedOperationExample } from '../../../domain/operations/examples.ts';
import { DomainError } from '../../../domain/kernel/errors.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID } from './examples.ts';
import { WebhookParams } from './params.ts';

const RecoverBody = z.strictObject({
  since: z.iso.datetime().describe('Deliveries created at or after this instant.'),
  until: z.iso.datetime().optional().describe('… and before this one; default now.'),
  statuses: z.array(RecoverableStatus).min(1).optional().describe('Which deliveries to send again; default ["dead"]. Failed ones are still being retried.'),
});

export const recoverWebhookDeliveries = defineOperation({
  id: 'recoverWebhookDeliveries',
  errors: [],
  group: 'webhooks',
  method: 'POST',
  path: '/companies/{companyId}/webhooks/{id}/recover',
  summary: "Re-send a webhook's failed deliveries",
  description:
    "Starts an operation (202; poll getOperation) that re-enqueues, as fresh deliveries, this webhook's dead (or failed) deliveries created in a time window — after an outage of the receiver.",
  auth: { scope: recoverWebhookDeliveriesKind.scope, also: ['operations:write'] },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  auditTarget: 'operation',
  input: { params: WebhookParams, body: RecoverBody },
  output: Operation,
  status: 202,
  examples: {
    params: { companyId: COMPANY_ID, id: WEBHOOK_ID },
    body: { since: '2026-11-20T00:00:00.000Z', until: '2026-11-21T00:00:00.000Z' },
    response: { ...queuedOperationExample, kind: recoverWebhookDeliveriesKind.kind },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => {
    const until = body.until ?? ctx.services.now().toISOString();
    if (until <= body.since) {
      throw new DomainError('VALIDATION_ERROR', { message: 'until must be after since.', details: [{ path: 'body.until', message: 'Must be after since.' }] });
    }
    await checkRecoverable(ctx, params.companyId, params.id);
    const input = { webhook_id: params.id, since: body.since, until, statuses: body.statuses ?? ['dead'] };
    return { data: await enqueueOperation(ctx, params.companyId, recoverWebhookDeliveriesKind.kind, input) };
  },
});
