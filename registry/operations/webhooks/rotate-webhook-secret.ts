import { RotatedWebhook, RotateWebhookSecretBody } from '../../../domain/webhooks/schemas.ts';
import { rotateWebhookSecret as rotate } from '../../../domain/webhooks/rotation.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, rotatedWebhookExample } from './examples.ts';
import { WebhookParams } from './params.ts';

export const rotateWebhookSecret = defineOperation({
  id: 'rotateWebhookSecret',
  group: 'webhooks',
  method: 'POST',
  path: '/companies/{companyId}/webhooks/{id}/rotate-secret',
  summary: "Rotate a webhook's signing secret",
  description:
    'Replaces the signing secret without downtime. The response holds the new secret, shown only this once. ' +
    'For overlap_seconds (default 24 h, at most 7 days) every delivery carries a signature by the new and by the previous secret, ' +
    'so the receiver can switch at any moment; expirePreviousWebhookSecret ends the overlap early. Requires an idempotency key.',
  auth: { scope: 'webhooks:manage' },
  risk: 'L2',
  idempotent: false,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'required',
  sideEffects: ['update'],
  errors: [],
  auditTarget: 'webhook',
  input: { params: WebhookParams, body: RotateWebhookSecretBody },
  output: RotatedWebhook,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID }, body: { overlap_seconds: 86_400 }, response: rotatedWebhookExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await rotate(ctx, params.companyId, params.id, body) }),
});
