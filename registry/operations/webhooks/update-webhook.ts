import { UpdateWebhookBody, Webhook } from '../../../domain/webhooks/schemas.ts';
import { prepareUpdateWebhook, updateWebhook as update } from '../../../domain/webhooks/subscriptions.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, webhookExample } from './examples.ts';
import { WebhookParams } from './params.ts';

export const updateWebhook = defineOperation({
  id: 'updateWebhook',
  group: 'webhooks',
  method: 'PATCH',
  path: '/companies/{companyId}/webhooks/{id}',
  summary: 'Update a webhook',
  description:
    'Changes webhook_url, name, description or active. active=false disables deliveries; active=true re-enables after re-checking the URL. ' +
    'event_type cannot change: create another webhook instead.',
  emits: ['webhook.disabled'],
  auth: { scope: 'webhooks:manage' },
  risk: 'L1',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'webhook',
  errors: [],
  input: { params: WebhookParams, body: UpdateWebhookBody },
  output: Webhook,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, id: WEBHOOK_ID },
    body: { active: false },
    response: {
      ...webhookExample,
      active: false,
      disabled_at: '2026-11-21T11:00:00.000Z',
      disabled_reason: 'manually_disabled',
      updated_at: '2026-11-21T11:00:00.000Z',
    },
  },
  surfaces: ['api', 'mcp', 'cli'],
  prepare: (ctx, { params, body }) => prepareUpdateWebhook(ctx, params.companyId, params.id, body),
  handler: async (ctx, { params, body, prepared }) => ({ data: await update(ctx, params.companyId, params.id, body, prepared) }),
});
