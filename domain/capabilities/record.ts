import { z } from 'zod';
import { PaginationQuery, decodeKeysetCursor, encodeKeysetCursor, keysetPage, type PaginationMeta } from '../kernel/pagination.ts';

/**
 * The capability record (spec "Capability record"): what the capability registry says about one
 * operation. This service keeps a local mirror of its own operations' records (registry/) and
 * asks the upstream registry first when one is configured (lookup.ts).
 */

export const OWNER_PRODUCT = 'accounting';

export const SURFACES = ['api', 'cli', 'mcp', 'ui'] as const;

/** The capability vocabulary's risk levels: L1 (reads and low-risk writes), L3 (needs a policy decision). */
export const CAPABILITY_RISK_LEVELS = ['L1', 'L3'] as const;
export type CapabilityRiskLevel = (typeof CAPABILITY_RISK_LEVELS)[number];

export const CapabilityRecord = z
  .object({
    capabilityId: z
      .string()
      .min(1)
      .describe('`<product>.<snake_case_action>` (e.g. accounting.create_webhook); lookups also accept the camelCase operation id.'),
    source: z.string().describe("`local_mirror` when the record comes from this service's own copy."),
    ownerProduct: z.string().describe('The product that owns the capability, e.g. accounting.'),
    riskLevel: z.string().optional().describe('Risk class, e.g. L1 (reads and reversible writes) or L3 (needs policy).'),
    riskClassification: z.string().describe('How riskLevel was set, e.g. contract_declared or unclassified.'),
    domain: z.string().describe('Functional domain, e.g. general, audit_events, developer_platform, decision, control_plane.'),
    surfaces: z.array(z.enum(SURFACES)).describe('Where the capability can be used.'),
    operationId: z.string().describe('The OpenAPI operationId.'),
    tenantScoped: z.boolean().optional().describe('Whether it acts inside one company.'),
    idempotent: z.boolean().optional(),
    sideEffects: z.array(z.string()).optional().describe('e.g. none, create, update, emits_event.'),
    rollbackSupport: z.string().optional().describe('e.g. none or unknown.'),
    ownerContractSha: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .optional(),
    ownerContractRef: z.string().optional().describe('`<owner>/<repo>:contracts/openapi.yaml`.'),
    requiresPolicy: z.boolean(),
    requiresAudit: z.boolean(),
    docsPath: z.string().describe('`/capabilities/<capabilityId>`.'),
    apiEndpointRefs: z.array(z.string()).describe('REST endpoints, `METHOD /api/v1/path`.'),
    cliCommandRefs: z.array(z.string()),
    mcpToolRefs: z.array(z.string()),
    sourceWarning: z.string().optional().describe('Present when the upstream registry could not answer and this (possibly stale) local copy is shown.'),
  })
  .describe('A capability record.');
export type CapabilityRecord = z.infer<typeof CapabilityRecord>;

/** Accepted in the path: a dotted capability id or a camelCase operation id. */
export const CapabilityIdParam = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
  .describe('A capability id (accounting.create_webhook) or an operation id (createWebhook).');

/** Every local record, resolvable by either id form. */
export interface LocalCapabilities {
  list: readonly CapabilityRecord[];
  find(id: string): CapabilityRecord | undefined;
}

export const CapabilityListQuery = z
  .strictObject({
    surface: z.enum(SURFACES).optional().describe('Only capabilities usable on this surface.'),
    risk_level: z.enum(CAPABILITY_RISK_LEVELS).optional().describe('Only capabilities of this risk level.'),
  })
  .extend(PaginationQuery.shape);
export type CapabilityListQuery = z.infer<typeof CapabilityListQuery>;

const LIST_NAME = 'capabilities';
const ListKey = z.object({ id: z.string().min(1) });

/** One page of records in capability id order (ids are unique), filtered; the list lives in memory. */
export function pageCapabilities(
  records: readonly CapabilityRecord[],
  query: CapabilityListQuery,
): { capabilities: CapabilityRecord[]; pagination: PaginationMeta } {
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = records
    .filter(
      (record) =>
        (query.surface === undefined || record.surfaces.includes(query.surface)) && (query.risk_level === undefined || record.riskLevel === query.risk_level),
    )
    .filter((record) => after === null || record.capabilityId > after.id)
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0))
    .slice(0, query.limit + 1);
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { id: last.capabilityId }));
  return { capabilities: page, pagination };
}
