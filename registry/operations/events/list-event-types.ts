import { z } from 'zod';
import { EventTypeInfo, EventTypeListQuery, describedEventType, pageEventTypes } from '../../../domain/events/catalog.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { EVENT_TYPES } from '../../../domain/events/types.ts';

export const listEventTypes = defineOperation({
  id: 'listEventTypes',
  group: 'events',
  method: 'GET',
  path: '/event-types',
  summary: 'List event types',
  description:
    `Lists the ${EVENT_TYPES.length} event types a webhook or the events feed can carry: per type its JSON Schema, an example event, the scopes that ` +
    'receive it and whether it carries personal data (filter: personal_data). Cursor-paginated. Public; needs no API key.',
  auth: { public: true },
  errors: [],
  ...READ_ONLY,
  database: 'none',
  input: { query: EventTypeListQuery },
  output: z.object({ event_types: z.array(EventTypeInfo) }),
  status: 200,
  // The first page's first type, which is also the smallest: one item teaches the shape (each carries a whole JSON Schema).
  examples: { response: { event_types: [describedEventType(EVENT_TYPES[0])] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (_ctx, { query }) => {
    const { event_types, pagination } = pageEventTypes(query);
    return { data: { event_types }, pagination };
  },
});
