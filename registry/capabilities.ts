import { API_PREFIX } from './api-prefix.ts';
import { cliCommandLine, hasCliSurface } from './cli-command.ts';
import { isTenantScoped, isWrite, type Group, type Operation, type Risk, type SideEffect, type Surface } from './define-operation.ts';
import { OWNER_PRODUCT, SURFACES, type CapabilityRecord, type LocalCapabilities } from '../domain/capabilities/record.ts';

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
const RISK_LEVEL: Record<Risk, 'L1' | 'L3'> = { L0: 'L1', L1: 'L1', L2: 'L3', L3: 'L3' };

/** The capability vocabulary has no `delete`; a delete is an update of the collection. */
const SIDE_EFFECT: Record<SideEffect, 'none' | 'create' | 'update' | 'emits_event'> = {
  none: 'none',
  create: 'create',
  update: 'update',
  delete: 'update',
  emits_event: 'emits_event',
};

export const capabilityIdOf = (operationId: string): string =>
  `${OWNER_PRODUCT}.${operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;

export function capabilityRecord(op: Omit<Operation, 'handler'>): CapabilityRecord {
  const capabilityId = capabilityIdOf(op.id);
  const surfaces = new Set<Surface | 'api'>([...op.surfaces, 'api']);
  return {
    capabilityId,
    source: 'local_mirror',
    ownerProduct: OWNER_PRODUCT,
    riskLevel: RISK_LEVEL[op.risk],
    riskClassification: 'contract_declared',
    domain: DOMAIN_OF_GROUP[op.group] ?? 'general',
    surfaces: SURFACES.filter((surface) => surfaces.has(surface as Surface)),
    operationId: op.id,
    tenantScoped: isTenantScoped(op),
    idempotent: op.idempotent,
    sideEffects: [...new Set(op.sideEffects.map((effect) => SIDE_EFFECT[effect]))],
    rollbackSupport: op.reversible ? 'unknown' : 'none',
    requiresPolicy: op.risk === 'L2' || op.risk === 'L3',
    requiresAudit: isWrite(op),
    docsPath: `/capabilities/${capabilityId}`,
    apiEndpointRefs: [`${op.method} ${API_PREFIX}${op.path}`],
    cliCommandRefs: hasCliSurface(op) ? [cliCommandLine(op)] : [],
    mcpToolRefs: [],
  };
}

export function localCapabilities(operations: readonly Omit<Operation, 'handler'>[]): LocalCapabilities {
  const list = operations.map(capabilityRecord);
  const index = new Map<string, CapabilityRecord>();
  for (const record of list) {
    index.set(record.capabilityId, record);
    index.set(record.operationId, record);
  }
  return { list, find: (id) => index.get(id) };
}

