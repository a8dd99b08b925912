import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal, Services } from '../domain/kernel/context.ts';
import { API_VERSION } from '../domain/kernel/version.ts';
import { invoke, type Invocation, type InvocationResult } from '../registry/invoke.ts';
import { mapCallError } from './map-error.ts';
import { DRY_RUN_ARG, IDEMPOTENCY_ARG, type ToolEntry } from './tools.ts';

/** Who is calling, as the transport established it. */
export interface Caller {
  services: Services;
  /** null only for an anonymous caller, who can use public operations alone. */
  principal: Principal | null;
  requestId: string;
  onDenial?: Invocation['onDenial'];
}

type Arguments = Record<string, unknown>;

/** REST sees path and query values as strings; giving the same schemas the same strings keeps both surfaces identical. */
const asText = (value: unknown): unknown =>
  typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : value;

/**
 * Splits the merged arguments back into the REST request they stand for. Names declared by the
 * path or query schemas go there; everything else is the body (so an unknown field meets the same
 * strict check as over REST); without a body of fields, leftovers are query parameters, which the
 * pipeline refuses by name as unknown.
 */
export function toRequest(entry: ToolEntry, args: Arguments): Pick<Invocation, 'raw' | 'idempotencyKey'> {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  let idempotencyKey: string | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (name === IDEMPOTENCY_ARG) {
      // Anything but a string fails invoke()'s format check, as a malformed header would.
      idempotencyKey = typeof value === 'string' ? value : '';
    } else if (name === DRY_RUN_ARG) {
      // Parsed (strictly, with REST's query flag) by the pipeline.
      query[name] = value;
    } else if (entry.paramKeys.has(name)) {
      params[name] = String(asText(value));
    } else if (entry.body === 'fields' && !entry.queryKeys.has(name)) {
      body[name] = value;
    } else if (!(entry.body === 'wrapped' && name === 'body')) {
      query[name] = asText(value);
    }
  }
  const raw: Invocation['raw'] = { params, query };
  if (entry.body === 'fields') raw.body = body;
  if (entry.body === 'wrapped') raw.body = args.body;
  return { raw, idempotencyKey };
}

/** Runs one tool call through the shared pipeline: the same scopes, tenancy, limits, idempotency and audit as REST. */
export async function callTool(entry: ToolEntry, args: Arguments, caller: Caller): Promise<CallToolResult> {
  try {
    const result = await invoke({
      services: caller.services,
      op: entry.op,
      actor: caller.principal,
      requestId: caller.requestId,
      ...toRequest(entry, args),
      ...(caller.onDenial && { onDenial: caller.onDenial }),
    });
    return success(entry, result, caller.requestId);
  } catch (error) {
    return mapCallError(error, caller.requestId, caller.services.logger);
  }
}

/**
 * structuredContent is exactly REST's `data`, so one output schema serves both surfaces. REST's
 * `meta` (request id, pagination, audit, dry run) goes in `_meta` for programs; the parts a model
 * must act on — the next cursor, a dry run, a replay — are also spelled out as text, because hosts
 * show models the content, not `_meta`.
 */
function success(entry: ToolEntry, result: InvocationResult, requestId: string): CallToolResult {
  const meta = {
    request_id: requestId,
    api_version: API_VERSION,
    ...result.meta,
    ...(result.replayed && { idempotent_replayed: true }),
  };
  const data = result.data;
  const content: CallToolResult['content'] = [
    { type: 'text', text: data === null ? 'Done. This operation returns no data.' : JSON.stringify(data) },
  ];
  const page = result.meta.pagination;
  if (page) {
    const next = page.has_more && page.next_cursor ? ` More results: call again with cursor="${page.next_cursor}".` : ' This is the last page.';
    content.push({ type: 'text', text: `pagination: ${JSON.stringify(page)}.${next}` });
  }
  if (result.meta.dry_run) content.push({ type: 'text', text: 'dry_run: every check passed; nothing was changed.' });
  if (result.replayed) content.push({ type: 'text', text: `${IDEMPOTENCY_ARG} was used before: this is that call's stored result; nothing ran again.` });
  const structured = entry.structured && data !== null && typeof data === 'object' && !Array.isArray(data);
  return { content, ...(structured && { structuredContent: data as Record<string, unknown> }), _meta: meta };
}
