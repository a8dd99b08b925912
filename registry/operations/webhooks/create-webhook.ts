import { CreateWebhookBody, CreatedWebhook } from '../../../domain/webhooks/schemas.ts';
import { createWebhook as create, prepareCreateWebhook } from '../../../domain/webhooks/subscriptions.ts';
import { defineOperation } from '../../define-operation.ts';
import { COMPANY_ID, createdWebhookExample } from './examples.ts';
import { CompanyParams } from '../params.ts';

export const createWebhook = defineOperation({
  id: 'createWebhook',
  group: 'webhooks',
  method: 'POST',
  path: '/companies/{companyId}/webhooks',
  summary: 'Create a webhook subscription',
  description:
    'Subscribes an https URL to one event type. The response holds the signing secret, shown only this once. ' +
    'salary_run.* and agi.* events also need payroll:read. Requires an idempotency key; a dry run validates without creating.',
  auth: { scope: 'webhooks:manage' },
  risk: 'L2',
  idempotent: false,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'required',
  sideEffects: ['create'],
  auditTarget: 'webhook',
  secretOutput: ['secret'],
  errors: [],
  input: { params: CompanyParams, body: CreateWebhookBody },
  output: CreatedWebhook,
  status: 201,
  examples: {
    params: { companyId: COMPANY_ID },
    body: {
      event_type: 'journal_entry.committed',
      webhook_url: 'https://hooks.example.com/accounting',
      name: 'Ledger sync',
      description: 'Mirrors committed journal entries into our BI warehouse.',
    },
    response: createdWebhookExample,
  },
  surfaces: ['api', 'mcp', 'cli'],
  prepare: (ctx, { body }) => prepareCreateWebhook(ctx, body),
  handler: async (ctx, { params, body, prepared }) => ({ data: await create(ctx, params.companyId, body, prepared) }),
});
