import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError } from '../../domain/kernel/errors.ts';
import { errorBody, errorHeaders } from '../error-catalog.ts';
import type { AppEnv } from './app-env.ts';

/** The error envelope with its status and the headers the catalogue pairs with the code. */
export function errorResponse(c: Context<AppEnv>, error: DomainError): Response {
  const body = errorBody(error, c.get('requestId'));
  for (const [name, value] of Object.entries(errorHeaders(error.code))) c.header(name, value);
  return c.json(body, body.error.status as ContentfulStatusCode);
}
