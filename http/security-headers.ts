import type { MiddlewareHandler } from 'hono';
import { API_VERSION } from '../domain/kernel/version.ts';
import type { AppEnv } from './app-env.ts';
import { REQUEST_ID_HEADER, SERVICE_VERSION_HEADER } from './response-headers.ts';

/**
 * The spec's response headers (Authentication 9), shared by every HTTP surface (REST, MCP,
 * discovery). Referrer-Policy's value is ours (DESIGN.md §6): the spec asks only for a strict one.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  [SERVICE_VERSION_HEADER]: API_VERSION,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
};

/** Wrapped (authenticated) API responses add this; public discovery routes omit it. */
export const ROBOTS_TAG = { name: 'X-Robots-Tag', value: 'noai, noimageai' } as const;

/**
 * Sets the headers before `next()`: set afterwards, Hono rebuilds the Response per header, which
 * cut throughput about 4x here (DESIGN.md §12). Wrapped API routes add X-Robots-Tag; public
 * discovery routes (llms.txt, skills, openapi.json) omit it.
 */
export const securityHeaders =
  (options: { robotsTag: boolean }): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    if (options.robotsTag) c.header(ROBOTS_TAG.name, ROBOTS_TAG.value);
    await next();
  };

/** The fixed headers of every wrapped API response, assembled once at load. */
const WRAPPED: Readonly<Record<string, string>> = Object.freeze({ ...SECURITY_HEADERS, [ROBOTS_TAG.name]: ROBOTS_TAG.value });
const WRAPPED_JSON: Readonly<Record<string, string>> = Object.freeze({ 'Content-Type': 'application/json', ...WRAPPED });

/**
 * The headers of one wrapped API response: the frozen set plus its request id (and any extra,
 * e.g. Retry-After). A plain object, which @hono/node-server hands to `writeHead` as it is; a
 * `Headers` instance (what `c.header()` builds) is rebuilt and converted entry by entry on every
 * response — with the security headers that took bare Hono to 0.62× of its throughput.
 */
export function wrappedHeaders(requestId: string, json: boolean, extra?: Readonly<Record<string, string>>): Record<string, string> {
  const fixed = json ? WRAPPED_JSON : WRAPPED;
  return extra ? { ...fixed, [REQUEST_ID_HEADER]: requestId, ...extra } : { ...fixed, [REQUEST_ID_HEADER]: requestId };
}

/** A wrapped API response with a JSON body: the one way operation routes answer (errors included). */
export const wrappedJson = (requestId: string, status: number, body: unknown, extra?: Readonly<Record<string, string>>): Response =>
  new Response(JSON.stringify(body), { status, headers: wrappedHeaders(requestId, true, extra) });
