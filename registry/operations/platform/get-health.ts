import { Health, checkHealth } from '../../../domain/platform/health.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

export const getHealth = defineOperation({
  id: 'getHealth',
  group: 'platform',
  method: 'GET',
  path: '/health',
  summary: 'Check service health',
  description:
    "Reports whether the API and its database answer, the webhook delivery backlog (how many are due, the oldest one's wait) " +
    'and whether this process runs a delivery loop. Public; needs no API key.',
  auth: { public: true },
  ...READ_ONLY,
  errors: [],
  input: {},
  output: Health,
  status: 200,
  examples: {
    response: {
      status: 'ok',
      api_version: '2026-11-01',
      database: { kind: 'postgres', time: '2026-11-21T10:00:00.000Z' },
      deliveries: { due: 3, oldest_due_seconds: 42, waiting_for_key: 0, loop_in_process: true },
    },
  },
  // No Prisma: a start's first health check answers before Prisma's query compiler has started.
  database: 'bare',
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx) => ({ data: await checkHealth(ctx) }),
});
