import { z } from 'zod';
import { CapabilityRecord } from '../../../domain/capabilities/record.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { localMirror } from './capability-source.ts';
import { listCompaniesRecord } from './examples.ts';

export const listCapabilities = defineOperation({
  id: 'listCapabilities',
  group: 'discovery',
  method: 'GET',
  path: '/capabilities',
  summary: 'List capability records',
  description: 'Lists the capability record of every operation of this API, from the local registry (not paginated). Public; needs no API key.',
  auth: { public: true },
  ...READ_ONLY,
  database: 'none',
  errors: [],
  input: {},
  output: z.object({ capabilities: z.array(CapabilityRecord) }),
  status: 200,
  examples: { response: { capabilities: [listCompaniesRecord] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async () => ({ data: { capabilities: [...(await localMirror()).list] } }),
});
