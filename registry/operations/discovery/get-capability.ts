import { z } from 'zod';
import { CapabilityIdParam, CapabilityRecord } from '../../../domain/capabilities/record.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { findCapability } from './capability-source.ts';
import { listCompaniesRecord } from './examples.ts';

export const getCapability = defineOperation({
  id: 'getCapability',
  group: 'discovery',
  method: 'GET',
  path: '/capabilities/{capabilityId}',
  summary: 'Look up a capability record',
  description:
    'Returns one capability record by capability id (accounting.list_companies) or operation id (listCompanies). ' +
    'When an upstream capability registry is configured it is asked first; if it cannot answer, the local copy is ' +
    'returned with a sourceWarning. Public; needs no API key.',
  auth: { public: true },
  ...READ_ONLY,
  // Waits on the upstream registry, so it must not hold a database connection meanwhile.
  database: 'none',
  errors: [],
  input: { params: z.object({ capabilityId: CapabilityIdParam }) },
  output: CapabilityRecord,
  status: 200,
  examples: { params: { capabilityId: 'accounting.list_companies' }, response: listCompaniesRecord },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await findCapability(ctx, params.capabilityId) }),
});
