import { z } from 'zod';

/**
 * The capability record (spec "Capability record"): what the capability registry says about one
 * operation. This service keeps a local mirror of its own operations' records (registry/) and
 * asks the upstream registry first when one is configured (lookup.ts).
 */

export const OWNER_PRODUCT = 'accounting';

export const SURFACES = ['api', 'cli', 'mcp', 'ui'] as const;

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
