import type { MiddlewareHandler } from 'hono';
import { newRequestId } from '../pipeline/request-id.ts';
import type { AppEnv } from './app-env.ts';
import { REQUEST_ID_HEADER } from './response-headers.ts';

/**
 * A fresh id per request, echoed as X-Request-Id and meta.request_id. Client-sent ids are not
 * trusted. Operation routes assign theirs themselves (see createApp) and send it with the frozen
 * wrapped header set.
 */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = newRequestId();
  c.set('requestId', id);
  c.header(REQUEST_ID_HEADER, id);
  await next();
};
