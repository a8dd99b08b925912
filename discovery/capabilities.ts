import { z } from 'zod';
import type pino from 'pino';
import type { Group, Risk, SideEffect, Surface } from '../registry/define-operation.ts';
import {
  fullPath,
  isTenantScoped,
  isWrite,
  type DescribedOperation,
} from './operation-traits.ts';

/**
 * Capability records (spec "Capability record", DESIGN.md §3): one per operation, derived from
 * its declaration, and the lookup that asks the upstream capability registry first when one is
 * configured (CAPABILITY_REGISTRY_URL) and falls back to this local mirror.
 */

export const OWNER_PRODUCT = 'accounting';

const SURFACES = ['api', 'cli', 'mcp', 'ui'] as const;

export const CapabilityRecord = z
  .object({
    capabilityId: z
      .string()
      .min(1)
      .describe('`<product>.<snake_case_action>` (e.g. accounting.create_webhook); lookups also accept the camelCase operation id.'),
    source: z.string().describe('`local_mirror` when the record comes from this service\'s own copy.'),
    ownerProduct: z.string().describe('The product that owns the capability, e.g. accounting.'),
    riskLevel: z.string().optional().describe('Risk class, e.g. L1 (reads and reversible writes) or L3 (needs policy).'),
    riskClassification: z.string().describe('How riskLevel was set, e.g. contract_declared or unclassified.'),
    domain: z
      .string()
      .describe('Functional domain, e.g. general, audit_events, developer_platform, decision, control_plane.'),
    surfaces: z.array(z.enum(SURFACES)).describe('Where the capability can be used.'),
    operationId: z.string().describe('The OpenAPI operationId.'),
    tenantScoped: z.boolean().optional().describe('Whether it acts inside one company.'),
    idempotent: z.boolean().optional(),
    sideEffects: z.array(z.string()).optional().describe('e.g. none, create, update, emits_event.'),
    rollbackSupport: z.string().optional().describe('e.g. none or unknown.'),
    ownerContractSha: z.string().regex(/^[0-9a-f]{40}$/).optional(),
    ownerContractRef: z.string().optional().describe('`<owner>/<repo>:contracts/openapi.yaml`.'),
    requiresPolicy: z.boolean(),
    requiresAudit: z.boolean(),
    docsPath: z.string().describe('`/capabilities/<capabilityId>`.'),
    apiEndpointRefs: z.array(z.string()).describe('REST endpoints, `METHOD /api/v1/path`.'),
    cliCommandRefs: z.array(z.string()),
    mcpToolRefs: z.array(z.string()),
    sourceWarning: z
      .string()
      .optional()
      .describe('Present when the upstream registry could not answer and this (possibly stale) local copy is shown.'),
  })
  .describe('A capability record.');
export type CapabilityRecord = z.infer<typeof CapabilityRecord>;

/** Accepted in the path: a dotted capability id or a camelCase operation id. */
export const CapabilityIdParam = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
  .describe('A capability id (accounting.create_webhook) or an operation id (createWebhook).');

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

export function capabilityRecord(op: DescribedOperation): CapabilityRecord {
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
    apiEndpointRefs: [`${op.method} ${fullPath(op)}`],
    cliCommandRefs: [],
    mcpToolRefs: [],
  };
}

/** Every operation's record, resolvable by either id form. */
export interface LocalCapabilities {
  list: readonly CapabilityRecord[];
  find(id: string): CapabilityRecord | undefined;
}

export function localCapabilities(operations: readonly DescribedOperation[]): LocalCapabilities {
  const list = operations.map(capabilityRecord);
  const index = new Map<string, CapabilityRecord>();
  for (const record of list) {
    index.set(record.capabilityId, record);
    index.set(record.operationId, record);
  }
  return { list, find: (id) => index.get(id) };
}

// ---------------------------------------------------------------------------------------------
// Lookup through the upstream registry.
// ---------------------------------------------------------------------------------------------

/** The lookup must stay snappy even when the upstream hangs: it is only a fresher copy. */
export const UPSTREAM_TIMEOUT_MS = 2_000;
/** A record is a few hundred bytes; anything far larger is not a record. */
const UPSTREAM_MAX_BYTES = 64 * 1024;

export interface UpstreamOptions {
  /** CAPABILITY_REGISTRY_URL; lookups are local only without it. */
  baseUrl: string | undefined;
  timeoutMs?: number;
  logger: pino.Logger;
}

export type LookupResult = { found: true; record: CapabilityRecord } | { found: false };

const STALE = 'showing this service\'s local copy, which may be stale';

/**
 * Upstream first: a valid 200 record wins. A 403 (spec), a 404, a 5xx, a timeout, a network
 * error or an invalid body fall back to the local record with a sourceWarning saying why; with
 * no local record either, the capability is unknown.
 */
export async function lookupCapability(id: string, local: LocalCapabilities, upstream: UpstreamOptions): Promise<LookupResult> {
  const mirror = local.find(id);
  if (!upstream.baseUrl) return mirror ? { found: true, record: mirror } : { found: false };

  const outcome = await askUpstream(upstream.baseUrl, mirror?.capabilityId ?? id, upstream.timeoutMs ?? UPSTREAM_TIMEOUT_MS);
  if (outcome.kind === 'record') return { found: true, record: outcome.record };
  if (outcome.kind !== 'not_found') upstream.logger.warn({ capability_id: id, upstream: outcome.kind, detail: outcome.detail }, 'capability registry lookup failed');
  if (!mirror) return { found: false };
  return { found: true, record: { ...mirror, sourceWarning: warningFor(outcome) } };
}

type UpstreamOutcome =
  | { kind: 'record'; record: CapabilityRecord }
  | { kind: 'not_found' | 'forbidden' | 'http_error' | 'timeout' | 'network' | 'invalid'; detail: string };

function warningFor(outcome: Exclude<UpstreamOutcome, { kind: 'record' }>): string {
  switch (outcome.kind) {
    case 'forbidden':
      return `The capability registry refused the lookup (HTTP 403); ${STALE}.`;
    case 'not_found':
      return `The capability registry has no record of this capability (HTTP 404); ${STALE}.`;
    case 'http_error':
      return `The capability registry answered ${outcome.detail}; ${STALE}.`;
    case 'timeout':
      return `The capability registry did not answer in time; ${STALE}.`;
    case 'network':
      return `The capability registry could not be reached; ${STALE}.`;
    case 'invalid':
      return `The capability registry returned an invalid record; ${STALE}.`;
  }
}

async function askUpstream(baseUrl: string, id: string, timeoutMs: number): Promise<UpstreamOutcome> {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/capabilities/${encodeURIComponent(id)}`;
  let response: Response;
  let text: string;
  try {
    // Redirects are not followed: the configured URL is the registry, nothing else.
    response = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 403) return { kind: 'forbidden', detail: 'HTTP 403' };
    if (response.status === 404) return { kind: 'not_found', detail: 'HTTP 404' };
    if (response.status !== 200) {
      await response.body?.cancel();
      return { kind: 'http_error', detail: `HTTP ${response.status}` };
    }
    text = await readBounded(response, UPSTREAM_MAX_BYTES);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout', detail: `no answer within ${timeoutMs} ms` };
    if (name === 'BodyTooLarge') return { kind: 'invalid', detail: 'body too large' };
    return { kind: 'network', detail: (error as Error).message };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'invalid', detail: 'not JSON' };
  }
  // The registry answers `{ data: record }` like we do; a bare record is accepted too.
  const candidate = body && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : body;
  const parsed = CapabilityRecord.safeParse(candidate);
  return parsed.success ? { kind: 'record', record: parsed.data } : { kind: 'invalid', detail: parsed.error.message };
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw Object.assign(new Error('upstream body too large'), { name: 'BodyTooLarge' });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
