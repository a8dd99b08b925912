import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../domain/kernel/errors.ts';
import type { AppEnv } from './app-env.ts';
import { wrappedErrorResponse } from './error-response.ts';
import { wrappedHeaders } from './security-headers.ts';
import { IDEMPOTENT_REPLAYED_HEADER, REQUEST_ID_HEADER, SERVICE_VERSION_HEADER } from './response-headers.ts';

/**
 * Cross-origin access to the API from browser pages (the Fetch standard's CORS protocol,
 * https://fetch.spec.whatwg.org/#http-cors-protocol), for the origins in CORS_ALLOWED_ORIGINS
 * only. Keys are bearer tokens, never cookies, so no `Access-Control-Allow-Credentials`.
 */

/** Request headers a browser client may send beyond the CORS-safelisted ones. */
export const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'Accept-Language'] as const;

/**
 * Response headers a browser client may read beyond the safelisted ones (Content-Type,
 * Content-Length, …): every header the API documents in openapi.json (a test holds them equal)
 * and Allow of a 405.
 */
export const CORS_EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  SERVICE_VERSION_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  'Retry-After',
  'WWW-Authenticate',
  'ETag',
  'Content-Disposition',
  'Allow',
] as const;

/**
 * How long a browser may reuse a preflight: ten minutes, so removing an origin from the setting
 * takes effect soon (Chromium caps the value at two hours anyway).
 */
export const CORS_MAX_AGE_SECONDS = 600;

const EXPOSED = CORS_EXPOSED_HEADERS.join(', ');
const REQUEST_HEADERS = CORS_REQUEST_HEADERS.join(', ');

export interface CorsOptions {
  /** Exact origins from CORS_ALLOWED_ORIGINS; empty means no origin is allowed. */
  allowedOrigins: readonly string[];
  /** The methods a concrete path answers (from the registry); empty for a path the API lacks. */
  allowedMethods: (path: string) => readonly string[];
  publicBaseUrl: string;
}

/**
 * The answer to OPTIONS: a preflight from an allowed origin gets 204 with the path's methods and
 * the headers above; one from any other origin a 403 saying which setting to change (rather than
 * a 405 that hides why the browser refused). An OPTIONS that is not a preflight, or one for a
 * path or method the API lacks, goes on to the usual 404/405.
 */
export const corsPreflight =
  (options: CorsOptions): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const origin = c.req.header('Origin');
    const method = c.req.header('Access-Control-Request-Method');
    const methods = options.allowedMethods(c.req.path);
    if (origin === undefined || method === undefined || !methods.includes(method.toUpperCase())) return next();
    const requestId = c.get('requestId');
    if (!options.allowedOrigins.includes(origin)) {
      const error = new DomainError('CORS_ORIGIN_NOT_ALLOWED', {
        message: `The origin ${origin} is not in this server's CORS_ALLOWED_ORIGINS${options.allowedOrigins.length === 0 ? ' (empty: no browser origin is allowed)' : ''}.`,
      });
      return wrappedErrorResponse(requestId, error, options.publicBaseUrl, { Vary: 'Origin' });
    }
    return new Response(null, {
      status: 204,
      headers: wrappedHeaders(requestId, false, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': methods.join(', '),
        'Access-Control-Allow-Headers': REQUEST_HEADERS,
        'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
        Vary: 'Origin',
      }),
    });
  };

/**
 * On every other API response (mounted only when origins are allowed, so a server without CORS
 * pays nothing): an allowed origin may read the response and the exposed headers; `Vary: Origin`
 * always, since the answer differs by origin and a shared cache must not mix them.
 */
export const corsResponseHeaders =
  (allowedOrigins: readonly string[]): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    await next();
    const origin = c.req.header('Origin');
    const headers = c.res.headers;
    if (origin !== undefined && allowedOrigins.includes(origin)) {
      headers.set('Access-Control-Allow-Origin', origin);
      headers.set('Access-Control-Expose-Headers', EXPOSED);
    }
    // A preflight's answer already varies by Origin.
    if (!/\borigin\b/i.test(headers.get('Vary') ?? '')) headers.append('Vary', 'Origin');
  };
