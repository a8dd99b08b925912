import { randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './types.ts';

/** A fresh id per request, echoed as X-Request-Id and meta.request_id. Client-sent ids are not trusted. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = `req_${randomBytes(12).toString('base64url')}`;
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await next();
};
