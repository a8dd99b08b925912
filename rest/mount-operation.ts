import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Services } from '../domain/kernel/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { invoke } from '../registry/invoke.ts';
import { isPublic, type Operation } from '../registry/define-operation.ts';
import { attributePublic, authenticate } from './auth.ts';
import { logDenial } from './denial-log.ts';
import { envelope } from '../registry/http/envelope.ts';
import { errorResponse } from '../registry/http/error-response.ts';
import { readJsonBody } from './read-body.ts';
import { securityHeaders } from '../registry/http/security-headers.ts';
import type { AppEnv } from '../registry/http/app-env.ts';
import { binaryResponse } from './binary-response.ts';

/** `/companies/{companyId}` → `/companies/:companyId` */
export const toHonoPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Query parameters as sent: a repeated name keeps every value, so the schema refuses it rather than one being picked. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]));
}

/** Turns one registry entry into a Hono route running the shared pipeline. */
export function mountOperation(app: Hono<AppEnv>, services: Services, op: Operation): void {
  const handler = async (c: Context<AppEnv>): Promise<Response> => {
    try {
      let principal = null;
      if (isPublic(op)) {
        // Attribution only: the key id goes into this request's log lines, never into authority.
        c.set('attributedApiKeyId', (await attributePublic(services, c))?.apiKeyId ?? null);
      } else {
        const auth = await authenticate(services, c);
        if (!auth.ok) {
          logDenial(services, c, auth.reason);
          throw new DomainError('UNAUTHENTICATED', {
            message: auth.reason === 'missing_token' ? 'Missing bearer token.' : 'The API key is invalid or revoked.',
          });
        }
        principal = auth.principal;
      }
      c.set('principal', principal);

      const result = await invoke({
        services,
        op,
        actor: principal,
        requestId: c.get('requestId'),
        raw: { params: c.req.param() as Record<string, string>, query: queryOf(c) },
        loadBody: () => readJsonBody(c),
        idempotencyKey: c.req.header('idempotency-key'),
        accept: c.req.header('accept'),
        onDenial: (kind, error) => logDenial(services, c, kind, error),
      });
      if (result.replayed) c.header('Idempotent-Replayed', 'true');
      // The answer depends on Accept wherever there is more than one representation (caches must know).
      if (op.produces?.length) c.header('Vary', 'Accept');
      if (result.binary) return binaryResponse(c, result.binary, result.status as ContentfulStatusCode);
      if (result.status === 204) return c.body(null, 204);
      return c.json(envelope(result.data, c.get('requestId'), result.meta), result.status as ContentfulStatusCode);
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(c, error);
      throw error;
    }
  };
  app.on(op.method, toHonoPath(op.path), securityHeaders({ robotsTag: true }), handler);
}
