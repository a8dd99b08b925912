import { Hono } from 'hono';
import type { Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import type { Registry } from '../registry/build-registry.ts';
import { mountOperation, toHonoPath } from './mount-operation.ts';
import { wrappedErrorResponse } from '../http/error-response.ts';
import { requestId } from '../http/request-id.ts';
import { accessLog } from './access-log.ts';
import { corsPreflight, corsResponseHeaders } from '../http/cors.ts';
import type { AppEnv, RouteModule } from '../http/app-env.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import type { RequestMetrics } from '../http/request-metrics.ts';
import { unexpectedError } from '../pipeline/unexpected-error.ts';

export interface AppOptions {
  /** Where answered requests are counted (ops/metrics.ts); none when metrics are off. */
  metrics?: RequestMetrics;
}

/** Builds the HTTP app: every registry operation under /api/v1, plus the given modules. */
export function createApp(services: Services, registry: Registry, modules: readonly RouteModule[] = [], options: AppOptions = {}): Hono<AppEnv> {
  // strict: false: `/companies/` is the same route as `/companies`, never a 405 contradicting its Allow.
  const app = new Hono<AppEnv>({ strict: false });
  // Operation routes come first: Hono runs matching handlers in registration order, and these
  // answer without calling next(), so they skip the middleware below; each assigns its own request
  // id and sends it with its frozen header set (the whole chain of an API request is one handler).
  const api = new Hono<AppEnv>({ strict: false });
  for (const op of registry.operations) mountOperation(api, services, op, options.metrics);
  const allowedOrigins = services.config.CORS_ALLOWED_ORIGINS;
  // Only with origins allowed: a server without CORS keeps its one-handler request path.
  if (allowedOrigins.length > 0) app.use(`${API_PREFIX}/*`, corsResponseHeaders(allowedOrigins));
  app.route(API_PREFIX, api);
  // Everything else (modules, 404s, 405s) gets its request id and access log line here.
  app.use('*', requestId);
  app.use('*', accessLog(services.logger, options.metrics));
  // Preflights are answered with or without allowed origins: a refused one says which setting to change.
  app.options(
    `${API_PREFIX}/*`,
    corsPreflight({ allowedOrigins, allowedMethods: (path) => allowedMethods(path), publicBaseUrl: services.config.PUBLIC_BASE_URL }),
  );
  for (const mount of modules) mount(app, services);

  const allowedMethods = (path: string): string[] => registry.operations.filter((op) => matches(toHonoPath(API_PREFIX + op.path), path)).map((op) => op.method);

  const base = services.config.PUBLIC_BASE_URL;
  const routes = registry.operations.map((op) => ({ method: op.method, path: API_PREFIX + op.path }));
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0) {
      return wrappedErrorResponse(c.get('requestId'), new DomainError('METHOD_NOT_ALLOWED', { message: `Use ${allowed.join(' or ')} on this path.` }), base, {
        Allow: allowed.join(', '),
      });
    }
    // A hint about routes, not ids: the path itself is wrong, so name the nearest documented ones.
    const near = closestRoutes(routes, c.req.path);
    return wrappedErrorResponse(
      c.get('requestId'),
      new DomainError('ROUTE_NOT_FOUND', {
        message: `No route ${c.req.method} ${c.req.path}. The routes are listed in ${API_PREFIX}/openapi.json.`,
        validAlternatives: near.map((route) => `${route.method} ${route.path}`),
      }),
      base,
    );
  });

  app.onError((error, c) => {
    if (error instanceof DomainError) return wrappedErrorResponse(c.get('requestId'), error, base);
    // Internals never reach the caller: logged, answered with the catalogue's 503 or 500.
    return wrappedErrorResponse(c.get('requestId'), unexpectedError(error, services.logger, c.get('requestId')), base);
  });
  return app;
}

const MAX_SUGGESTED_ROUTES = 5;

/**
 * The documented routes nearest to an unknown path: those sharing the longest run of leading
 * segments with it (a `{param}` segment matches any value), the likeliest typo first (edit
 * distance of the first segment that differs), at most MAX_SUGGESTED_ROUTES.
 */
export function closestRoutes<R extends { path: string }>(routes: readonly R[], path: string): R[] {
  const segments = path.replace(/\/+$/, '').split('/');
  const score = (template: string): { shared: number; distance: number } => {
    const parts = template.split('/');
    let shared = 0;
    while (shared < parts.length && shared < segments.length) {
      const part = parts[shared] as string;
      if (!(part.startsWith('{') ? segments[shared] !== '' : part === segments[shared])) break;
      shared++;
    }
    return { shared, distance: editDistance(parts[shared] ?? '', segments[shared] ?? '') };
  };
  const scored = routes.map((route) => ({ route, ...score(route.path) }));
  const best = Math.max(0, ...scored.map((entry) => entry.shared));
  // Only the prefix in common ('', 'api', 'v1') says little: then compare with the collection roots.
  const prefixDepth = API_PREFIX.split('/').length;
  const pool =
    best > prefixDepth ? scored.filter((entry) => entry.shared === best) : scored.filter((entry) => entry.route.path.split('/').length === prefixDepth + 1);
  return pool
    .sort((a, b) => a.distance - b.distance)
    .map((entry) => entry.route)
    .slice(0, MAX_SUGGESTED_ROUTES);
}

/** Levenshtein distance: how many single-character edits turn one segment into the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** Whether a Hono-style route pattern (`/a/:id`) matches a concrete path. */
function matches(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((part, i) => (part.startsWith(':') ? (b[i] ?? '') !== '' : part === b[i]));
}
