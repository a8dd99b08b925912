import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG, docsUrlFor, type ErrorBody } from '../registry/error-catalog.ts';
import { RETRY_AFTER_SECONDS } from '../domain/ratelimit/consume.ts';
import type { AppEnv } from './types.ts';

/** Builds the error envelope for a domain error; the only place REST turns codes into statuses. */
export function errorBody(error: DomainError, requestId: string): ErrorBody {
  const entry = ERROR_CATALOG[error.code];
  return {
    error: {
      code: error.code,
      message: error.hasCustomMessage ? error.message : entry.message,
      status: entry.status,
      request_id: requestId,
      recovery_hint: entry.recoveryHint,
      docs_url: docsUrlFor(error.code),
      valid_alternatives: error.validAlternatives ?? [...entry.validAlternatives],
      ...(error.details && { details: error.details }),
      ...(error.requiredScope && { required_scope: error.requiredScope }),
    },
  };
}

export function errorResponse(c: Context<AppEnv>, error: DomainError): Response {
  const body = errorBody(error, c.get('requestId'));
  if (error.code === 'RATE_LIMITED') c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  if (error.code === 'UNAUTHENTICATED') c.header('WWW-Authenticate', 'Bearer realm="api"');
  return c.json(body, body.error.status as ContentfulStatusCode);
}
