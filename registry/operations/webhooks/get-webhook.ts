import { Webhook } from '../../../domain/webhooks/schemas.ts';
import { getWebhook as get } from '../../../domain/webhooks/subscriptions.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, webhookExample } from './examples.ts';
import { WebhookParams } from './params.ts';

export const getWebhook = defineOperation({
  id: 'getWebhook',
  group: 'webhooks',
  method: 'GET',
  path: '/companies/{companyId}/webhooks/{id}',
  summary: 'Get a webhook',
  description: 'Returns one webhook subscription, without its secret.',
  auth: { scope: 'webhooks:manage' },
  ...READ_ONLY,
  errors: [],
  input: { params: WebhookParams },
  output: Webhook,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID }, response: webhookExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.id) }),
});
