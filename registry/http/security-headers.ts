import type { MiddlewareHandler } from 'hono';
import { API_VERSION } from '../../domain/kernel/version.ts';
import type { AppEnv } from './app-env.ts';

/**
 * The spec's response headers (Authentication 9), shared by every HTTP surface (REST, MCP,
 * discovery). Referrer-Policy's value is ours (DESIGN.md §6): the spec asks only for a strict one.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Service-Version': API_VERSION,
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
