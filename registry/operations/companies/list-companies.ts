import { z } from 'zod';
import { CompanyListItem } from '../../../domain/companies/schemas.ts';
import { listCompanies as list } from '../../../domain/companies/list.ts';
import { PaginationQuery } from '../../../domain/kernel/pagination.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

export const listCompanies = defineOperation({
  id: 'listCompanies',
  group: 'companies',
  method: 'GET',
  path: '/companies',
  summary: 'List your companies',
  description:
    'Lists the companies the API key can act on, oldest membership first, paginated by cursor (pass next_cursor back as cursor). ' +
    'Start here: every company-scoped operation needs a company id from this list.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { query: PaginationQuery },
  output: z.object({ companies: z.array(CompanyListItem) }),
  status: 200,
  examples: {
    query: { limit: 50 },
    response: {
      companies: [
        {
          id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10',
          name: 'Demo Bokföring AB',
          org_number: '556677-8899',
          entity_type: 'aktiebolag',
          livemode: false,
          created_at: '2026-11-01T09:00:00.000Z',
          updated_at: '2026-11-01T09:00:00.000Z',
          membership: {
            id: '9b2e7c4d-1f3a-4b5c-8d6e-7f8091a2b3c4',
            role: 'owner',
            joined_at: '2026-11-01T09:00:00.123456Z',
          },
        },
      ],
    },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { query }) => {
    const { companies, pagination } = await list(ctx, query);
    return { data: { companies }, pagination };
  },
});
