import { z } from 'zod';
import { CapabilityListQuery, CapabilityRecord, pageCapabilities } from '../../../domain/capabilities/record.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { localMirror } from './capability-source.ts';
import { listCompaniesRecord } from './examples.ts';

export const listCapabilities = defineOperation({
  id: 'listCapabilities',
  group: 'discovery',
  method: 'GET',
  path: '/capabilities',
  summary: 'List capability records',
  description:
    'The capability record of every operation of this API, from the local registry, in id order; optionally of one surface or risk level. Cursor-paginated. Public; needs no API key.',
  auth: { public: true },
  ...READ_ONLY,
  database: 'none',
  errors: [],
  input: { query: CapabilityListQuery },
  output: z.object({ capabilities: z.array(CapabilityRecord) }),
  status: 200,
  examples: { query: { surface: 'mcp' }, response: { capabilities: [listCompaniesRecord] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (_ctx, { query }) => {
    const { capabilities, pagination } = pageCapabilities((await localMirror()).list, query);
    return { data: { capabilities }, pagination };
  },
});
