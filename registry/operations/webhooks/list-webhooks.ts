import { z } from 'zod';
import { Webhook } from '../../../domain/webhooks/schemas.ts';
import { listWebhooks as list } from '../../../domain/webhooks/subscriptions.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { COMPANY_ID, webhookExample } from './examples.ts';
import { CompanyParams } from '../params.ts';

export const listWebhooks = defineOperation({
  id: 'listWebhooks',
  group: 'webhooks',
  method: 'GET',
  path: '/companies/{companyId}/webhooks',
  summary: 'List webhooks',
  description: "Lists a company's webhook subscriptions (at most 50, so no pagination). Secrets are never included.",
  auth: { scope: 'webhooks:manage' },
  ...READ_ONLY,
  errors: [],
  input: { params: CompanyParams },
  output: z.object({ webhooks: z.array(Webhook) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, response: { webhooks: [webhookExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: { webhooks: await list(ctx, params.companyId) } }),
});
