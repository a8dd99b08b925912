import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal, Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { API_VERSION } from '../domain/kernel/version.ts';
import { invoke, type Invocation, type InvocationResult } from '../pipeline/invoke.ts';
import type { FileContent } from '../registry/define-operation.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { ERROR_CATALOG } from '../registry/error-catalog.ts';
import type { RequestMetrics } from '../http/request-metrics.ts';
import { mapCallError } from './map-error.ts';
import { inToolTerms, toRequest } from './tool-request.ts';
import { IDEMPOTENCY_ARG, NEXT_CURSOR_FIELD, REVEAL_SECRET_ARG, type ToolEntry } from './tools.ts';

/** Who is calling, as the transport established it. */
export interface Caller {
  services: Services;
  /** null only for an anonymous caller, who can use public operations alone. */
  principal: Principal | null;
  requestId: string;
  onDenial?: Invocation['onDenial'];
  /** The HTTP request's admission (key, count, tenancy), for the first tool call it carries. */
  admission?: Invocation['admission'];
  /** Where each call is counted, by operation and status (over HTTP with metrics on). */
  metrics?: Pick<RequestMetrics, 'toolCall'>;
}

type Arguments = Record<string, unknown>;

/**
 * Runs one tool call: the arguments checked against the tool's input schema first, then the shared
 * pipeline — the same scopes, tenancy, limits, idempotency and audit as REST.
 */
export async function callTool(entry: ToolEntry, args: Arguments, caller: Caller): Promise<CallToolResult> {
  try {
    try {
      entry.validate(args);
    } catch (error) {
      if (error instanceof DomainError) caller.onDenial?.('validation', error);
      throw error;
    }
    const request = toRequest(entry, args);
    const result = await invoke({
      services: caller.services,
      op: entry.op,
      actor: caller.principal,
      requestId: caller.requestId,
      admission: caller.admission,
      ...request,
      ...(caller.onDenial && { onDenial: caller.onDenial }),
    });
    const answer = success(entry, args, result, caller.requestId);
    if (result.file) answer.content.push(await fileContent(result.file, restUrl(caller, entry, request.raw.params)));
    caller.metrics?.toolCall(entry.op.id, result.status);
    return answer;
  } catch (error) {
    // The status REST answers with for the same failure: the catalogue's, or 500 for the unexpected.
    caller.metrics?.toolCall(entry.op.id, error instanceof DomainError ? ERROR_CATALOG[error.code].status : 500);
    return mapCallError(inToolTerms(error, entry), caller.requestId, caller.services, entry.speak);
  }
}

// ---------------------------------------------------------------------------------------------
// Results an agent can act on.
// ---------------------------------------------------------------------------------------------

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Arguments for the tool that follows up a 202: from this call's arguments, the answer, or the answer's id. */
function pollArguments(poll: ToolEntry, args: Arguments, data: unknown): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  const answer = isRecord(data) ? data : {};
  for (const [name, target] of poll.args) {
    if (target.part !== 'params') continue;
    const value = args[name] ?? answer[name] ?? (target.key === 'id' ? answer.id : undefined);
    if (value === undefined || value === null) return null;
    out[name] = value;
  }
  return out;
}

/**
 * structuredContent is REST's `data` — on cursor lists plus `next_cursor` — and the text block is
 * the same JSON. REST's `meta` (request id, pagination, audit, dry run) goes in `_meta` for
 * programs; what a model must act on (the next page, a queued job, a dry run, a replay, a withheld
 * secret) is also said in words, because hosts show models the content, not `_meta`.
 */
function success(entry: ToolEntry, args: Arguments, result: InvocationResult, requestId: string): CallToolResult {
  const meta = {
    request_id: requestId,
    api_version: API_VERSION,
    ...result.meta,
    ...(result.replayed && { idempotent_replayed: true }),
  };
  const notes: string[] = [];
  let data = result.data;
  const withheld = args[REVEAL_SECRET_ARG] === false ? (entry.op.secretOutput ?? []) : [];
  if (withheld.length > 0 && isRecord(data)) {
    data = Object.fromEntries(Object.entries(data).filter(([field]) => !withheld.includes(field)));
    notes.push(
      `${withheld.join(', ')} left out (${REVEAL_SECRET_ARG}: false). The API key's owner can still read it once: ` +
        `repeat this exact call with the same ${IDEMPOTENCY_ARG} within 24 hours (over REST: the Idempotency-Key header), which replays the stored answer.`,
    );
  }
  const page = result.meta.pagination;
  if (entry.paginated && isRecord(data)) data = { ...data, [NEXT_CURSOR_FIELD]: page?.has_more ? page.next_cursor : null };
  if (page) {
    notes.push(
      page.has_more && page.next_cursor
        ? `More results: call ${entry.name} again with the same arguments and cursor="${page.next_cursor}".`
        : 'This is the last page.',
    );
  }
  if (result.status === 202) {
    const poll = entry.poll ? pollArguments(entry.poll, args, data) : null;
    notes.push(
      entry.poll && poll
        ? `Accepted (202): queued, not done yet. Follow it up with ${entry.poll.name} ${JSON.stringify(poll)}.`
        : 'Accepted (202): queued, not done yet.',
    );
  }
  if (result.meta.dry_run) notes.push('dry_run: every check passed; nothing was changed.');
  if (result.replayed) notes.push(`${IDEMPOTENCY_ARG} was used before: this is that call's stored result; nothing ran again.`);

  const structured = entry.structured && isRecord(data);
  const content: CallToolResult['content'] = [
    { type: 'text', text: data === null ? 'Done. This operation returns no data.' : JSON.stringify(data) },
    ...notes.map((text) => ({ type: 'text' as const, text })),
  ];
  return { content, ...(structured && { structuredContent: data as Record<string, unknown> }), _meta: meta };
}

/** Files up to this size come back inside the tool result; larger ones are fetched over REST. */
export const MAX_EMBEDDED_FILE_BYTES = 1024 * 1024;

/** The REST URL of the same request: the embedded resource's URI, and where a larger file is downloaded. */
function restUrl(caller: Caller, entry: ToolEntry, params: Record<string, string>): string {
  const path = entry.op.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(params[name] ?? ''));
  return `${caller.services.config.PUBLIC_BASE_URL}${API_PREFIX}${path}`;
}

/** A file answer over MCP: the bytes as an embedded resource when small enough, else where to fetch them. */
async function fileContent(file: FileContent, url: string): Promise<CallToolResult['content'][number]> {
  if (file.size !== undefined && file.size > MAX_EMBEDDED_FILE_BYTES) {
    return {
      type: 'text',
      text: `The file is ${file.size} bytes, more than the ${MAX_EMBEDDED_FILE_BYTES} a tool result carries: download it over REST with GET ${url}.`,
    };
  }
  const body = await file.read();
  const bytes = body instanceof Uint8Array ? Buffer.from(body) : Buffer.from(await new Response(body).arrayBuffer());
  return { type: 'resource', resource: { uri: url, mimeType: file.contentType, blob: bytes.toString('base64') } };
}
