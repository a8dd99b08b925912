import { API_PREFIX } from './api-prefix.ts';
import { cliCommandLine, hasCliSurface } from './cli-command.ts';
import { isTenantScoped, isWrite, type Group, type Operation, type Risk, type SideEffect } from './define-operation.ts';
import { VARIANTS, toolName } from './tool-names.ts';
import { OWNER_PRODUCT, SURFACES, type CapabilityRecord, type CapabilityRiskLevel, type LocalCapabilities } from '../domain/capabilities/record.ts';

/** Capability records derived from operation declarations (DESIGN.md §3): the local mirror. */

/** Group → capability domain. Groups not listed are `general` (business data). */
const DOMAIN_OF_GROUP: Partial<Record<Group, string>> = {
  platform: 'developer_platform',
  webhooks: 'developer_platform',
  discovery: 'developer_platform',
  companies: 'general',
};

/**
 * The capability vocabulary has two risk levels: L1 (reads and low-risk writes) and L3 (writes
 * that need a policy decision). Our L0/L1 map to L1 and L2/L3 to L3, matching requiresPolicy.
 */
const RISK_LEVEL: Record<Risk, CapabilityRiskLevel> = { L0: 'L1', L1: 'L1', L2: 'L3', L3: 'L3' };

/** The capability vocabulary has no `delete`; a delete is an update of the collection. */
const SIDE_EFFECT: Record<SideEffect, 'none' | 'create' | 'update' | 'emits_event'> = {
  none: 'none',
  create: 'create',
  update: 'update',
  delete: 'update',
  emits_event: 'emits_event',
};

/** Where each capability's human page is served (`docsPath`), relative to PUBLIC_BASE_URL. */
export const CAPABILITY_DOCS_PREFIX = '/capabilities';

export const capabilityIdOf = (operationId: string): string => `${OWNER_PRODUCT}.${operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;

export function capabilityRecord(op: Omit<Operation, 'handler'>): CapabilityRecord {
  const capabilityId = capabilityIdOf(op.id);
  return {
    capabilityId,
    source: 'local_mirror',
    ownerProduct: OWNER_PRODUCT,
    riskLevel: RISK_LEVEL[op.risk],
    riskClassification: 'contract_declared',
    domain: DOMAIN_OF_GROUP[op.group] ?? 'general',
    // Only surfaces that exist: the registry refuses any other at load.
    surfaces: SURFACES.filter((surface) => (op.surfaces as readonly string[]).includes(surface)),
    operationId: op.id,
    tenantScoped: isTenantScoped(op),
    idempotent: op.idempotent,
    sideEffects: [...new Set(op.sideEffects.map((effect) => SIDE_EFFECT[effect]))],
    rollbackSupport: op.reversible ? 'unknown' : 'none',
    requiresPolicy: op.risk === 'L2' || op.risk === 'L3',
    requiresAudit: isWrite(op),
    docsPath: `${CAPABILITY_DOCS_PREFIX}/${capabilityId}`,
    apiEndpointRefs: [`${op.method} ${API_PREFIX}${op.path}`],
    cliCommandRefs: hasCliSurface(op) ? [cliCommandLine(op)] : [],
    // Both naming variants: a client may know the tool by either.
    mcpToolRefs: op.surfaces.includes('mcp') ? VARIANTS.map((variant) => toolName(op, variant)) : [],
  };
}

export function localCapabilities(operations: readonly Omit<Operation, 'handler'>[]): LocalCapabilities {
  const list = operations.map(capabilityRecord);
  const index = new Map<string, CapabilityRecord>();
  // Resolvable by capability id, operation id, or either MCP tool name (DESIGN.md §6).
  for (const record of list) {
    for (const name of [record.capabilityId, record.operationId, ...record.mcpToolRefs]) index.set(name, record);
  }
  return { list, find: (id) => index.get(id) };
}
