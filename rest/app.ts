import { Hono } from 'hono';
import type { Services } from '../domain/kernel/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import type { Registry } from '../registry/build-registry.ts';
import { mountOperation, toHonoPath } from './mount-operation.ts';
import { wrappedErrorResponse } from '../registry/http/error-response.ts';
import { requestId } from './request-id.ts';
import type { AppEnv, RouteModule } from '../registry/http/app-env.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';

/** Builds the HTTP app: every registry operation under /api/v1, plus the given modules. */
export function createApp(services: Services, registry: Registry, modules: readonly RouteModule[] = []): Hono<AppEnv> {
  // strict: false: `/companies/` is the same route as `/companies`, never a 405 contradicting its Allow.
  const app = new Hono<AppEnv>({ strict: false });
  // Operation routes come first: Hono runs matching handlers in registration order, and these
  // answer without calling next(), so they skip the middleware below; each assigns its own request
  // id and sends it with its frozen header set (the whole chain of an API request is one handler).
  const api = new Hono<AppEnv>({ strict: false });
  for (const op of registry.operations) mountOperation(api, services, op);
  app.route(API_PREFIX, api);
  // Everything else (modules, 404s, 405s) gets its request id here.
  app.use('*', requestId);
  for (const mount of modules) mount(app, services);

  const allowedMethods = (path: string): string[] =>
    registry.operations.filter((op) => matches(toHonoPath(API_PREFIX + op.path), path)).map((op) => op.method);

  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0) {
      return wrappedErrorResponse(
        c.get('requestId'),
        new DomainError('METHOD_NOT_ALLOWED', { message: `Use ${allowed.join(' or ')} on this path.` }),
        { Allow: allowed.join(', ') },
      );
    }
    return wrappedErrorResponse(c.get('requestId'), new DomainError('NOT_FOUND', { message: `No such route. See ${API_PREFIX}/openapi.json.` }));
  });

  app.onError((error, c) => {
    if (error instanceof DomainError) return wrappedErrorResponse(c.get('requestId'), error);
    // Internals never reach the caller: log everything, answer with the catalogue's 500.
    services.logger.error({ err: error, request_id: c.get('requestId') }, 'unhandled error');
    return wrappedErrorResponse(c.get('requestId'), new DomainError('INTERNAL_ERROR'));
  });
  return app;
}

/** Whether a Hono-style route pattern (`/a/:id`) matches a concrete path. */
function matches(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((part, i) => part.startsWith(':') ? (b[i] ?? '') !== '' : part === b[i]);
}
