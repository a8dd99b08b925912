import { z } from 'zod';
import { Delivery } from '../../../domain/webhooks/schemas.ts';
import { listDeliveries } from '../../../domain/webhooks/deliveries.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, deliveryExample } from './examples.ts';
import { WebhookParams } from './params.ts';

export const listWebhookDeliveries = defineOperation({
  id: 'listWebhookDeliveries',
  group: 'webhooks',
  method: 'GET',
  path: '/companies/{companyId}/webhooks/{id}/deliveries',
  summary: 'List a webhook\'s deliveries',
  description:
    'Lists one webhook\'s deliveries, newest first, with status, attempt count and the receiver\'s last response; ' +
    'include=attempts adds every attempt from the audit log. Paginated by cursor (pass next_cursor back as cursor).',
  auth: { scope: 'webhooks:manage' },
  ...READ_ONLY,
  errors: [],
  input: {
    params: WebhookParams,
    query: PaginationQuery.extend({
      include: z.enum(['attempts']).optional().describe('attempts: add each delivery\'s full attempt_history.'),
    }),
  },
  output: z.object({ deliveries: z.array(Delivery) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID }, query: { limit: 50 }, response: { deliveries: [deliveryExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { deliveries, pagination } = await listDeliveries(ctx, params.companyId, params.id, query);
    return { data: { deliveries }, pagination };
  },
});
