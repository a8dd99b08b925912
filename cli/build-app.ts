import type { Services } from '../domain/kernel/context.ts';
import { registry } from '../registry/index.ts';
import { createApp } from '../rest/app.ts';
import type { RouteModule } from '../registry/http/app-env.ts';
import { mountMcp } from '../mcp/http.ts';
import { discoveryRoutes } from '../discovery/routes.ts';
import { cronRoute } from '../dispatcher/cron-route.ts';

/**
 * The full HTTP surface: registry operations under /api/v1 plus the sibling surfaces' routes
 * (discovery, MCP, the dispatcher's cron route). Assembled here, in the entry-point layer, so
 * rest/, mcp/ and discovery/ never import each other.
 */
export const ROUTE_MODULES: readonly RouteModule[] = [mountMcp, discoveryRoutes, cronRoute()];

export const buildApp = (services: Services) => createApp(services, registry, ROUTE_MODULES);
