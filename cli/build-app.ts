import type { Services } from '../domain/context.ts';
import { registry } from '../registry/index.ts';
import { createApp } from '../rest/app.ts';
import type { RouteModule } from '../http/app-env.ts';
import { mcpRoutes } from '../mcp/http.ts';
import { discoveryRoutes } from '../discovery/routes.ts';
import { cronRoute } from '../dispatcher/cron-route.ts';
import { oauthRoutes } from '../http/oauth/routes.ts';
import { mcpContentSources } from './mcp-content.ts';
import type { Metrics } from '../ops/metrics.ts';

export interface BuildOptions {
  /** Counts requests, tool calls and cron deliveries when METRICS_PORT is set. */
  metrics?: Pick<Metrics, 'requests' | 'onDeliveries'> | null;
}

/**
 * The full HTTP surface: registry operations under /api/v1 plus the sibling surfaces' routes
 * (discovery, MCP with the skills as prompts and the discovery documents as resources, the
 * dispatcher's cron route). Assembled here, in the entry-point layer, so rest/, mcp/ and
 * discovery/ never import each other.
 */
export const routeModules = (services: Services, options: BuildOptions = {}): readonly RouteModule[] => [
  mcpRoutes({ content: mcpContentSources(services), metrics: options.metrics?.requests }),
  discoveryRoutes,
  cronRoute({ onOutcomes: options.metrics?.onDeliveries }),
  oauthRoutes,
];

export const buildApp = (services: Services, options: BuildOptions = {}) =>
  createApp(services, registry, routeModules(services, options), { metrics: options.metrics?.requests });
