import { Event } from '../../../domain/events/schemas.ts';
import { getEvent as get } from '../../../domain/events/feed.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { COMPANY_ID, EVENT_ID, committedEventExample } from './examples.ts';
import { EventParams } from './params.ts';

export const getEvent = defineOperation({
  id: 'getEvent',
  group: 'events',
  method: 'GET',
  path: '/companies/{companyId}/events/{eventId}',
  summary: 'Get an event',
  description:
    'Returns one event exactly as webhooks deliver it, e.g. to check a delivery by its X-Service-Event-Id. ' +
    'Payroll and AGI events need payroll:read; without it they answer as unknown.',
  auth: { scope: 'events:read' },
  errors: [],
  ...READ_ONLY,
  input: { params: EventParams },
  output: Event,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, eventId: EVENT_ID }, response: committedEventExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.eventId) }),
});
