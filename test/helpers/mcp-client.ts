import type { Hono } from 'hono';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppEnv } from '../../http/app-env.ts';

export interface InProcessOptions {
  key?: string;
  /** A bearer read before every request (an OAuth access token that may be renewed); instead of `key`. */
  bearer?: () => Promise<string>;
  /** Query string for /mcp, e.g. `?toolsets=companies&variant=flat`. */
  query?: string;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

/**
 * A real MCP SDK client speaking Streamable HTTP to the in-process Hono app: the transport's fetch
 * goes to app.request, so the whole /mcp route (Host check, auth, selection, SDK transport) runs.
 */
export async function connectInProcess(app: Hono<AppEnv>, options: InProcessOptions = {}): Promise<Client> {
  const env = { incoming: { socket: { remoteAddress: options.remoteAddress ?? '203.0.113.77' } } };
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost/mcp${options.query ?? ''}`), {
    requestInit: { headers: { ...(options.key && { authorization: `Bearer ${options.key}` }), ...options.headers } },
    fetch: async (url, init) => {
      if (!options.bearer) return app.request(String(url), init, env as never);
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${await options.bearer()}`);
      return app.request(String(url), { ...init, headers }, env as never);
    },
  });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Raw JSON-RPC POST to /mcp (for what the SDK client would never send). */
export async function postMcp(
  app: Hono<AppEnv>,
  body: unknown,
  options: { key?: string; headers?: Record<string, string>; method?: string; query?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(options.key && { authorization: `Bearer ${options.key}` }),
    ...options.headers,
  };
  const method = options.method ?? 'POST';
  const init: RequestInit = { method, headers, ...(method === 'POST' && { body: JSON.stringify(body) }) };
  const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
  const response = await app.request(`http://localhost/mcp${options.query ?? ''}`, init, env as never);
  const text = await response.text();
  // `any` keeps assertions on protocol bodies short; each test checks the shape it relies on.
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** The JSON in a tool result's first text block (success data or the error body). */
export function firstJson(result: CallToolResult | Record<string, unknown>): any {
  const content = (result as CallToolResult).content;
  const first = content?.[0];
  if (first?.type !== 'text') throw new Error(`no text content in ${JSON.stringify(result)}`);
  return JSON.parse(first.text);
}

/** Every text block of a tool result joined, for assertions on the lines a model reads. */
export const allText = (result: CallToolResult | Record<string, unknown>): string =>
  ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** REST's `meta`, as a tool result carries it in `_meta`. */
export interface ToolMeta {
  request_id: string;
  api_version: string;
  pagination?: { next_cursor: string | null; has_more: boolean };
  audit?: { id: string; action: string };
  dry_run?: true;
  idempotent_replayed?: true;
}
export const metaOf = (result: Record<string, unknown>): ToolMeta => result._meta as ToolMeta;

/** structuredContent, loosely typed like REST bodies in helpers/http.ts: each test checks the shape it uses. */
export const dataOf = (result: Record<string, unknown>): any => result.structuredContent;
