import type { Services } from '../domain/kernel/context.ts';
import { registry } from '../registry/index.ts';
import { createApp } from '../rest/app.ts';
import type { RouteModule } from '../registry/http/app-env.ts';
import { mcpRoutes } from '../mcp/http.ts';
import { discoveryRoutes } from '../discovery/routes.ts';
import { cronRoute } from '../dispatcher/cron-route.ts';
import { mcpContentSources } from './mcp-content.ts';

/**
 * The full HTTP surface: registry operations under /api/v1 plus the sibling surfaces' routes
 * (discovery, MCP with the skills as prompts and the discovery documents as resources, the
 * dispatcher's cron route). Assembled here, in the entry-point layer, so rest/, mcp/ and
 * discovery/ never import each other.
 */
export const routeModules = (services: Services): readonly RouteModule[] => [
  mcpRoutes({ content: mcpContentSources(services) }),
  discoveryRoutes,
  cronRoute(),
];

export const buildApp = (services: Services) => createApp(services, registry, routeModules(services));
