import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError } from '../domain/kernel/errors.ts';
import { errorBody } from '../registry/error-catalog.ts';
import { RETRY_AFTER_SECONDS } from '../domain/ratelimit/consume.ts';
import type { AppEnv } from './types.ts';

export function errorResponse(c: Context<AppEnv>, error: DomainError): Response {
  const body = errorBody(error, c.get('requestId'));
  if (error.code === 'RATE_LIMITED') c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  if (error.code === 'UNAUTHENTICATED') c.header('WWW-Authenticate', 'Bearer realm="api"');
  return c.json(body, body.error.status as ContentfulStatusCode);
}
