import { deleteWebhook as remove } from '../../../domain/webhooks/subscriptions.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID } from './examples.ts';
import { WebhookParams } from './params.ts';

export const deleteWebhook = defineOperation({
  id: 'deleteWebhook',
  group: 'webhooks',
  method: 'DELETE',
  path: '/companies/{companyId}/webhooks/{id}',
  summary: 'Delete a webhook',
  description: 'Deletes a subscription. Its deliveries remain as the audit trail (webhook_id becomes null) and are no longer sent.',
  auth: { scope: 'webhooks:manage' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['delete'],
  auditTarget: 'webhook',
  errors: [],
  input: { params: WebhookParams },
  output: null,
  status: 204,
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => {
    await remove(ctx, params.companyId, params.id);
    return { data: null };
  },
});
