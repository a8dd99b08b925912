import type { Context, Hono } from 'hono';
import type { Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import type { Admission } from '../domain/apikeys/admit.ts';
import { invoke, type Upload } from '../pipeline/invoke.ts';
import { isPublic, isTenantScoped, type Operation } from '../registry/define-operation.ts';
import { attributePublic, authenticate } from './auth.ts';
import { logDenial, type DenialReason } from '../http/denial-log.ts';
import { loggedHeader } from '../http/logged-header.ts';
import { envelope } from '../http/envelope.ts';
import { bearerChallenge } from '../http/oauth/resources.ts';
import { wrappedErrorResponse } from '../http/error-response.ts';
import { readJsonBody } from './read-body.ts';
import { wrappedHeaders, wrappedJson } from '../http/security-headers.ts';
import { newRequestId } from '../pipeline/request-id.ts';
import type { AppEnv } from '../http/app-env.ts';
import { binaryResponse, fileResponse } from './binary-response.ts';
import { readUpload } from './read-upload.ts';
import { logRequest } from './access-log.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { NO_REQUEST_METRICS, type RequestMetrics } from '../http/request-metrics.ts';
import { unexpectedError } from '../pipeline/unexpected-error.ts';
import { IDEMPOTENT_REPLAYED_HEADER } from '../http/response-headers.ts';

/** `/companies/{companyId}` → `/companies/:companyId` */
export const toHonoPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

const REPLAYED: Readonly<Record<string, string>> = Object.freeze({ [IDEMPOTENT_REPLAYED_HEADER]: 'true' });

/** Query parameters as sent: a repeated name keeps every value, so the schema refuses it rather than one being picked. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]));
}

/**
 * Turns one registry entry into a Hono route running the shared pipeline. The handler is the
 * whole chain of an API request: it assigns the request id, admits the key (one round trip:
 * key, rate-limit count, tenancy of the path's company) and answers with the frozen wrapped
 * header set, never through `c.header()` (see http/security-headers.ts).
 */
/** Logs a denied request with what REST knows of it. */
function denied(services: Services, c: Context<AppEnv>, reason: DenialReason, error?: DomainError): void {
  const facts = {
    requestId: c.get('requestId'),
    address: c.env?.incoming?.socket?.remoteAddress,
    userAgent: loggedHeader(c.req.header('user-agent')),
    apiKeyId: c.get('principal')?.apiKeyId ?? c.get('attributedApiKeyId') ?? null,
    http: { method: c.req.method, path: c.req.path },
  };
  logDenial(services.logger, facts, reason, error);
}

export function mountOperation(app: Hono<AppEnv>, services: Services, op: Operation, metrics: RequestMetrics = NO_REQUEST_METRICS): void {
  const tenantScoped = isTenantScoped(op);
  const takesBody = op.input.body !== undefined;
  // The answer depends on Accept wherever there is more than one representation, and on
  // Accept-Language where one is written in several languages (caches must know).
  const varies = [...(op.produces?.length ? ['Accept'] : []), ...(op.produces?.some((representation) => representation.languages) ? ['Accept-Language'] : [])];
  const vary: Readonly<Record<string, string>> | undefined = varies.length > 0 ? Object.freeze({ Vary: varies.join(', ') }) : undefined;
  const replayedVary = Object.freeze({ ...REPLAYED, ...vary });
  const answer = async (c: Context<AppEnv>): Promise<Response> => {
    const requestId = newRequestId();
    c.set('requestId', requestId);
    // An upload's spooled file lives until the answer is ready (the handler reads it piece by piece).
    let upload: Upload | null = null;
    try {
      let principal = null;
      let admission: Admission | undefined;
      if (isPublic(op)) {
        // Attribution only: the key id goes into this request's log lines, never into authority.
        c.set('attributedApiKeyId', (await attributePublic(services, c))?.apiKeyId ?? null);
      } else {
        const auth = await authenticate(services, c, tenantScoped ? (c.req.param('companyId') ?? '') : null);
        if (!auth.ok) {
          denied(services, c, auth.reason);
          throw new DomainError('UNAUTHENTICATED', {
            message: auth.reason === 'missing_token' ? 'Missing bearer token.' : 'The API key is invalid or revoked.',
          });
        }
        admission = auth.admission;
        principal = admission.principal;
      }
      c.set('principal', principal);

      const result = await invoke({
        services,
        op,
        actor: principal,
        admission,
        requestId,
        raw: { params: c.req.param() as Record<string, string>, query: queryOf(c) },
        ...(takesBody && { loadBody: () => readJsonBody(c) }),
        ...(op.input.file && { loadUpload: async () => (upload = await readUpload(c, op)) }),
        idempotencyKey: c.req.header('idempotency-key'),
        accept: c.req.header('accept'),
        acceptLanguage: c.req.header('accept-language'),
        onDenial: (kind, error) => denied(services, c, kind, error),
      });
      const extra = result.replayed ? replayedVary : vary;
      if (result.binary) return binaryResponse(requestId, result.binary, result.status, extra);
      if (result.file) return fileResponse(requestId, result.file, c.req.header('if-none-match'), extra);
      if (result.status === 204) return new Response(null, { status: 204, headers: wrappedHeaders(requestId, false, extra) });
      return wrappedJson(requestId, result.status, envelope(result.data, requestId, result.meta), extra);
    } catch (error) {
      // Answered here, not in app.onError, so the access log below records the status sent.
      const answered = error instanceof DomainError ? error : unexpectedError(error, services.logger, requestId);
      // A 401 names the resource metadata, where an OAuth client discovers how to get a token (RFC 9728 §5.1).
      const challenge =
        answered.code === 'UNAUTHENTICATED'
          ? { 'WWW-Authenticate': bearerChallenge(services.config.PUBLIC_BASE_URL, 'api', c.req.header('authorization') !== undefined) }
          : undefined;
      return wrappedErrorResponse(requestId, answered, services.config.PUBLIC_BASE_URL, challenge);
    } finally {
      // `upload` is assigned inside loadUpload, which TypeScript's flow analysis does not follow.
      await (upload as Upload | null)?.dispose?.();
    }
  };
  const route = API_PREFIX + op.path;
  // Resolved once here: a request only adds to its status's counts (no label building per request).
  const series = metrics.series('rest', op.id);
  // The access log line and the metrics, here: operation routes answer before any middleware runs.
  const handler = async (c: Context<AppEnv>): Promise<Response> => {
    const started = performance.now();
    let status = 500; // unless answered (answer() answers every error it catches)
    try {
      const response = await answer(c);
      status = response.status;
      return response;
    } finally {
      const ended = performance.now();
      series.observe(status, (ended - started) / 1000);
      logRequest(
        services.logger,
        { method: op.method, route, status, started, requestId: c.get('requestId'), apiKeyId: c.get('principal')?.apiKeyId ?? null },
        ended,
      );
    }
  };
  app.on(op.method, toHonoPath(op.path), handler);
}
