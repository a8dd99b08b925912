import type { MiddlewareHandler } from 'hono';
import type pino from 'pino';
import type { AppEnv } from '../http/app-env.ts';
import { NO_REQUEST_METRICS, OPERATION_LABELS, type RequestMetrics } from '../http/request-metrics.ts';

/** `/api/v1/companies/:companyId` → `/api/v1/companies/{companyId}`: the documented template. */
const template = (routePath: string): string => routePath.replace(/:(\w+)/g, '{$1}');

export interface RequestLine {
  method: string;
  /** The documented route template, never the concrete path (which holds ids); null when no route matched. */
  route: string | null;
  status: number;
  /** performance.now() when the request arrived. */
  started: number;
  requestId: string | undefined;
  /** The principal the request authenticated as; null for anonymous requests. Never the key. */
  apiKeyId: string | null;
}

/** One line per request, after it is answered: method, route template, status, duration, request id and key id. */
export function logRequest(logger: pino.Logger, line: RequestLine, now: number = performance.now()): void {
  if (!logger.isLevelEnabled('info')) return;
  logger.info(
    {
      event: 'request',
      method: line.method,
      route: line.route,
      status: line.status,
      duration_ms: Math.round((now - line.started) * 10) / 10,
      request_id: line.requestId,
      api_key_id: line.apiKeyId,
    },
    `${line.method} ${line.route ?? '(no route)'} ${line.status}`,
  );
}

/**
 * The access log and request metrics for every route but the operation routes, which answer
 * before middleware runs and do both themselves (rest/mount-operation.ts). A route names its own
 * metrics labels (`/mcp`, cron); any other matched route is discovery, and no match is unmatched.
 */
export function accessLog(
  logger: pino.Logger,
  metrics: RequestMetrics = NO_REQUEST_METRICS,
  now: () => number = () => performance.now(),
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = now();
    try {
      await next();
    } finally {
      // Hono's matched pattern; `/*` when only the catch-all (unknown route) answered.
      const matched = c.req.routePath && c.req.routePath !== '/*' && c.req.routePath !== '*';
      const route = matched ? template(c.req.routePath) : null;
      const ended = now();
      const status = c.res.status;
      const operation = c.get('operationLabel') ?? (matched ? OPERATION_LABELS.discovery : OPERATION_LABELS.unmatched);
      metrics.series(c.get('surface') ?? 'rest', operation).observe(status, (ended - started) / 1000);
      logRequest(
        logger,
        { method: c.req.method, route, status, started, requestId: c.get('requestId'), apiKeyId: c.get('principal')?.apiKeyId ?? null },
        ended,
      );
    }
  };
}
