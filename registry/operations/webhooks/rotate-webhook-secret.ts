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
    'Replaces the signing secret without downtime; the response holds the new secret, shown only once. For overlap_seconds ' +
    '(default 24 h, at most 7 days) each delivery is signed with the new and the previous secret; expirePreviousWebhookSecret ' +
    'ends the overlap early. Requires an idempotency key.',
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
