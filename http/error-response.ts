import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError } from '../domain/kernel/errors.ts';
import { errorBody, errorHeaders } from '../registry/error-catalog.ts';
import type { AppEnv } from './app-env.ts';
import { wrappedJson } from './security-headers.ts';

/**
 * The error envelope with its status and the headers the catalogue pairs with the code;
 * `publicBaseUrl` (PUBLIC_BASE_URL) roots its docs_url.
 */
export function errorResponse(c: Context<AppEnv>, error: DomainError, publicBaseUrl: string): Response {
  const body = errorBody(error, c.get('requestId'), publicBaseUrl);
  for (const [name, value] of Object.entries(errorHeaders(error.code))) c.header(name, value);
  return c.json(body, body.error.status as ContentfulStatusCode);
}

/** The same envelope with the frozen wrapped header set (operation routes, API 404/405, 500): no Hono context headers. */
export function wrappedErrorResponse(requestId: string, error: DomainError, publicBaseUrl: string, extra?: Readonly<Record<string, string>>): Response {
  const body = errorBody(error, requestId, publicBaseUrl);
  const headers = errorHeaders(error.code);
  return wrappedJson(requestId, body.error.status, body, extra ? { ...headers, ...extra } : headers);
}
