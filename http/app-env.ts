import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { Principal, Services } from '../domain/context.ts';
import type { Surface } from './request-metrics.ts';

/**
 * The Hono environment every HTTP surface shares (REST, MCP's /mcp, discovery, the cron route).
 * It lives here, below the surfaces, so no surface imports another's internals.
 */
export interface AppEnv {
  /** @hono/node-server's: the authorization server (a Koa app) answers on them directly. */
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse };
  Variables: {
    requestId: string;
    principal: Principal | null;
    /** On public routes: the key an optional bearer token named, for log lines only (spec Endpoints 8). */
    attributedApiKeyId?: string | null;
    /** Set by a route that is not a registry operation's: its metrics labels (else rest, and discovery or unmatched). */
    surface?: Surface;
    operationLabel?: string;
  };
}

/** Extra routes mounted beside the registry's: discovery, MCP, cron (assembled in cli/build-app.ts). */
export type RouteModule = (app: Hono<AppEnv>, services: Services) => void;
