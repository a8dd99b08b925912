import { z } from 'zod';
import { Event, ListEventsQuery } from '../../../domain/events/schemas.ts';
import { listEvents as list } from '../../../domain/events/feed.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { COMPANY_ID, committedEventExample } from './examples.ts';
import { CompanyParams } from '../params.ts';

export const listEvents = defineOperation({
  id: 'listEvents',
  group: 'events',
  method: 'GET',
  path: '/companies/{companyId}/events',
  summary: 'List events',
  description:
    'The events a company emitted, oldest first, exactly as webhooks deliver them: the replay feed after an outage. Filter by type ' +
    '(comma-separated) and a created range. The last page also returns a cursor: keep it to ask later for newer events only. ' +
    'Payroll and AGI events need payroll:read.',
  auth: { scope: 'events:read' },
  errors: [],
  ...READ_ONLY,
  input: { params: CompanyParams, query: ListEventsQuery },
  output: z.object({ events: z.array(Event) }),
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID },
    query: { limit: 50 },
    response: { events: [committedEventExample] },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { events, pagination } = await list(ctx, params.companyId, query);
    return { data: { events }, pagination };
  },
});
