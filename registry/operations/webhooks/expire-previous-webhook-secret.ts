import { Webhook } from '../../../domain/webhooks/schemas.ts';
import { expirePreviousWebhookSecret as expire } from '../../../domain/webhooks/rotation.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, webhookExample } from './examples.ts';
import { WebhookParams } from './params.ts';

export const expirePreviousWebhookSecret = defineOperation({
  id: 'expirePreviousWebhookSecret',
  group: 'webhooks',
  method: 'POST',
  path: '/companies/{companyId}/webhooks/{id}/expire-previous-secret',
  summary: "End a secret rotation's overlap now",
  description:
    'Erases the previous signing secret of a rotation before its overlap ends: from now on deliveries are signed with the current secret only. ' +
    'Answers the webhook; without an overlap in progress it changes nothing.',
  auth: { scope: 'webhooks:manage' },
  risk: 'L2',
  idempotent: true,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'optional',
  sideEffects: ['update'],
  errors: [],
  auditTarget: 'webhook',
  input: { params: WebhookParams },
  output: Webhook,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID }, response: webhookExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await expire(ctx, params.companyId, params.id) }),
});
