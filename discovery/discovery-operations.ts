import { z } from 'zod';
import { CapabilityIdParam, CapabilityRecord } from './capabilities.ts';
import type { Registry } from '../registry/build-registry.ts';
import { READ_ONLY } from '../registry/define-operation.ts';
import type { DescribedOperation } from './operation-traits.ts';

/**
 * The capability lookup routes, declared like registry operations so every discovery output
 * (OpenAPI, docs, skills, capability records) describes them the same way. They are served by
 * discovery/routes.ts rather than the registry pipeline because a lookup may wait up to two
 * seconds on the upstream registry, and public registry operations hold a database transaction
 * (PGlite's only connection) while their handler runs. They belong in the registry once it can
 * declare a handler that needs no database (proposed).
 */

const listCompaniesRecord: z.input<typeof CapabilityRecord> = {
  capabilityId: 'accounting.list_companies',
  source: 'local_mirror',
  ownerProduct: 'accounting',
  riskLevel: 'L1',
  riskClassification: 'contract_declared',
  domain: 'general',
  surfaces: ['api', 'cli', 'mcp'],
  operationId: 'listCompanies',
  tenantScoped: false,
  idempotent: true,
  sideEffects: ['none'],
  rollbackSupport: 'unknown',
  requiresPolicy: false,
  requiresAudit: false,
  docsPath: '/capabilities/accounting.list_companies',
  apiEndpointRefs: ['GET /api/v1/companies'],
  cliCommandRefs: [],
  mcpToolRefs: [],
};

const readOnlyPublic = {
  group: 'discovery',
  method: 'GET',
  auth: { public: true },
  ...READ_ONLY,
  status: 200,
  surfaces: ['api'],
} as const;

export const listCapabilities: DescribedOperation = {
  ...readOnlyPublic,
  id: 'listCapabilities',
  path: '/capabilities',
  summary: 'List capability records',
  description:
    'Lists the capability record of every operation of this API, from the local registry (not paginated). ' +
    'Public; needs no API key.',
  input: {},
  output: z.object({ capabilities: z.array(CapabilityRecord) }),
  examples: { response: { capabilities: [listCompaniesRecord] } },
};

export const getCapability: DescribedOperation = {
  ...readOnlyPublic,
  id: 'getCapability',
  path: '/capabilities/{capabilityId}',
  summary: 'Look up a capability record',
  description:
    'Returns one capability record by capability id (accounting.list_companies) or operation id (listCompanies). ' +
    'When an upstream capability registry is configured it is asked first; if it cannot answer, the local copy is ' +
    'returned with a sourceWarning. Public; needs no API key.',
  input: { params: z.object({ capabilityId: CapabilityIdParam }) },
  output: CapabilityRecord,
  examples: { params: { capabilityId: 'accounting.list_companies' }, response: listCompaniesRecord },
};

/** Served by discovery/routes.ts, in documentation order. */
export const DISCOVERY_OPERATIONS: readonly DescribedOperation[] = [listCapabilities, getCapability];

/** The registry's operations plus the discovery routes the registry does not (yet) declare. */
export const describedOperations = (registry: Registry): DescribedOperation[] => [
  ...registry.operations,
  ...DISCOVERY_OPERATIONS.filter((op) => !registry.byId(op.id)),
];
