import { Delivery } from '../../../domain/webhooks/schemas.ts';
import { sendTestDelivery } from '../../../domain/webhooks/deliveries.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, pendingDeliveryExample } from './examples.ts';
import { WebhookParams } from './params.ts';

export const testWebhook = defineOperation({
  id: 'testWebhook',
  group: 'webhooks',
  method: 'POST',
  path: '/companies/{companyId}/webhooks/{id}/test',
  summary: 'Send a test delivery',
  description:
    'Enqueues a signed test delivery (payload marked "test": true, with an example object of the webhook\'s event type). ' +
    'Answers 202 with the pending delivery; refused while the webhook is disabled.',
  auth: { scope: 'webhooks:manage' },
  risk: 'L1',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  auditTarget: 'webhook_delivery',
  errors: [],
  input: { params: WebhookParams },
  output: Delivery,
  status: 202,
  pollWith: 'listWebhookDeliveries',
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID }, response: { ...pendingDeliveryExample, event_id: null, test: true } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await sendTestDelivery(ctx, params.companyId, params.id) }),
});
