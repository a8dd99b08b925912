import type { MiddlewareHandler } from 'hono';
import { API_VERSION } from '../domain/kernel/version.ts';
import type { AppEnv } from './types.ts';

/** The spec's security headers (Authentication 9). Referrer-Policy value: DESIGN.md §6. */
const BASE_HEADERS: Readonly<Record<string, string>> = {
  'Service-Version': API_VERSION,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
};

/**
 * Sets the headers before `next()`: set afterwards, Hono rebuilds the Response per header, which
 * cut throughput about 4x here (DESIGN.md §12). Wrapped API routes add X-Robots-Tag; public
 * discovery routes (llms.txt, skills, openapi.json) omit it.
 */
export const securityHeaders =
  (options: { robotsTag: boolean }): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    for (const [name, value] of Object.entries(BASE_HEADERS)) c.header(name, value);
    if (options.robotsTag) c.header('X-Robots-Tag', 'noai, noimageai');
    await next();
  };
