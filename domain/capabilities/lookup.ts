import type pino from 'pino';
import { CapabilityRecord, type LocalCapabilities } from './record.ts';

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

const STALE = "showing this service's local copy, which may be stale";

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
  if (outcome.kind !== 'not_found')
    upstream.logger.warn({ capability_id: id, upstream: outcome.kind, detail: outcome.detail }, 'capability registry lookup failed');
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
