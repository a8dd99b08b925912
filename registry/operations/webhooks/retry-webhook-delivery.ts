import { Delivery } from '../../../domain/webhooks/schemas.ts';
import { prepareRetryDelivery, retryDelivery as retry } from '../../../domain/webhooks/deliveries.ts';
import { defineOperation } from '../../define-operation.ts';
import { DELIVERY_ID, pendingDeliveryExample } from './examples.ts';
import { DeliveryParams } from './params.ts';

export const retryWebhookDelivery = defineOperation({
  id: 'retryWebhookDelivery',
  group: 'webhooks',
  method: 'POST',
  path: '/webhook-deliveries/{id}/retry',
  summary: 'Retry a delivery',
  description:
    'Enqueues a fresh pending copy of a delivered or dead delivery (the original stays unchanged). ' +
    'Refused for deliveries still pending or in flight, a deleted or disabled webhook, or a URL that is no longer safe.',
  auth: { scope: 'webhooks:manage' },
  risk: 'L1',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  auditTarget: 'webhook_delivery',
  // 409 for a delivery still pending or in flight (its scope, tenancy and validation answers come from the traits).
  errors: ['CONFLICT'],
  input: { params: DeliveryParams },
  output: Delivery,
  status: 202,
  pollWith: 'listWebhookDeliveries',
  examples: { params: { id: DELIVERY_ID }, response: { ...pendingDeliveryExample, retry_of: DELIVERY_ID } },
  surfaces: ['api', 'mcp', 'cli'],
  prepare: (ctx, { params }) => prepareRetryDelivery(ctx, params.id),
  handler: async (ctx, { params, prepared }) => ({ data: await retry(ctx, params.id, prepared) }),
});
