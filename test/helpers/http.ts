import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';

/** Sends a request through the real Hono app (no mocks), with a bearer key and JSON body when given. */
export async function call(
  app: Hono<AppEnv>,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const env = { incoming: { socket: { remoteAddress: options.remoteAddress ?? '203.0.113.77' } } };
  const response = await app.request(path, { method, headers, ...(body !== undefined && { body }) }, env as never);
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  // `any` keeps assertions on response bodies short; each test checks the shape it relies on.
  return { status: response.status, headers: response.headers, body: parsed as any, text };
}
