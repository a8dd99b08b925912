import { z } from 'zod';
import { DeliveryFilters, ListedDelivery, type Delivery } from '../../../domain/webhooks/schemas.ts';
import { listDeliveries } from '../../../domain/webhooks/deliveries.ts';
import { attemptsOfDeliveries, eventsOfDeliveries, webhooksOfDeliveries } from '../../../domain/webhooks/delivery-expansions.ts';
import { PAYROLL_SCOPE, isPayrollEventType } from '../../../domain/events/types.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY, type Expansion } from '../../define-operation.ts';
import { COMPANY_ID, WEBHOOK_ID, deliveryExample } from './examples.ts';
import { WebhookParams } from './params.ts';

const deliveryExpansion = (expansion: Expansion<Delivery>): Expansion<Delivery> => expansion;

export const listWebhookDeliveries = defineOperation({
  id: 'listWebhookDeliveries',
  group: 'webhooks',
  method: 'GET',
  path: '/companies/{companyId}/webhooks/{id}/deliveries',
  summary: "List a webhook's deliveries",
  description:
    "Lists one webhook's deliveries, newest first, with status, attempt count and the receiver's last response; " +
    'filter by status and a created_gte/created_lt window; expand adds the webhook, the event or every attempt. Paginated by cursor (pass next_cursor back as cursor).',
  auth: { scope: 'webhooks:manage' },
  ...READ_ONLY,
  errors: [],
  input: { params: WebhookParams, query: PaginationQuery.extend(DeliveryFilters.shape) },
  output: z.object({ deliveries: z.array(ListedDelivery) }),
  status: 200,
  expand: {
    list: 'deliveries',
    options: {
      webhook: deliveryExpansion({ field: 'webhook', load: webhooksOfDeliveries }),
      event: deliveryExpansion({
        field: 'event',
        scope: 'events:read',
        // Payroll events carry personal data: only keys that may read payroll see them.
        itemScope: (delivery) => (isPayrollEventType(delivery.event_type) ? PAYROLL_SCOPE : null),
        load: eventsOfDeliveries,
      }),
      attempts: deliveryExpansion({ field: 'attempt_history', load: attemptsOfDeliveries }),
    },
  },
  examples: { params: { companyId: COMPANY_ID, id: WEBHOOK_ID }, query: { limit: 50 }, response: { deliveries: [deliveryExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { deliveries, pagination } = await listDeliveries(ctx, params.companyId, params.id, query);
    return { data: { deliveries }, pagination };
  },
});
