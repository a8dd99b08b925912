import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import type { Operation } from '../../registry/define-operation.ts';
import { fullPath, requestContentType } from '../../discovery/operation-traits.ts';
import { FILE_CONTENT_ARG } from '../../mcp/arguments.ts';
import { IDEMPOTENCY_ARG, type ToolEntry } from '../../mcp/tools.ts';
import { PDF } from './documents.ts';
import { call } from './http.ts';

/**
 * One operation called from its documented examples, over REST or as its MCP tool: what the
 * registry-generated matrices (tenancy, scopes) send for every operation.
 */

/** An operation's example path parameters, as strings. */
export const exampleParams = (op: Operation): Record<string, string> =>
  Object.fromEntries(Object.entries((op.examples.params ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));

/** Substitutes real ids for example ids anywhere in an example value (bodies may name resources). */
export function withIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => withIds(item, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIds(v, ids)]));
  return value;
}

/** The operation's path with these parameters and its example query. */
export function requestPath(op: Operation, params: Record<string, string>): string {
  const path = fullPath(op).replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = new URLSearchParams(Object.entries((op.examples.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  return `${path}${query.size > 0 ? `?${query}` : ''}`;
}

/** The operation over REST with these parameters, its example body (ids swapped) and a fresh idempotency key. */
export const sendRest = (app: Hono<AppEnv>, op: Operation, params: Record<string, string>, key: string, ids: ReadonlyMap<string, string> = new Map()) =>
  call(app, op.method, requestPath(op, params), {
    key,
    ...(op.examples.body !== undefined && requestContentType(op) === 'application/json' && { body: withIds(op.examples.body, ids) }),
    headers: op.idempotencyKey === 'none' ? {} : { 'idempotency-key': randomUUID() },
  });

/** The tool's arguments for these parameters and the example query and body, in its own argument names (company_id, entry_id, …). */
export function toolArguments(entry: ToolEntry, params: Record<string, string>, ids: ReadonlyMap<string, string> = new Map()): Record<string, unknown> {
  const op = entry.op;
  const body = op.examples.body !== undefined ? withIds(op.examples.body, ids) : undefined;
  const args: Record<string, unknown> = {};
  const put = (part: 'params' | 'query' | 'body', values: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(values)) args[entry.argumentFor(part, key) ?? key] = value;
  };
  put('params', params);
  put('query', (op.examples.query ?? {}) as Record<string, unknown>);
  if (body !== undefined) {
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) put('body', body as Record<string, unknown>);
    else args.body = body;
  }
  if (op.input.file) args[FILE_CONTENT_ARG] = PDF.toString('base64');
  if (op.idempotencyKey !== 'none') args[IDEMPOTENCY_ARG] = randomUUID();
  return args;
}
