import type { MiddlewareHandler } from 'hono';
import { ROBOTS_TAG, SECURITY_HEADERS } from '../registry/security-headers.ts';
import type { AppEnv } from './types.ts';

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
