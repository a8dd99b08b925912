import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { ConfigSchema, httpTimeouts } from '../domain/kernel/config.ts';
import type { AppEnv } from '../http/app-env.ts';

export interface HttpTimeouts {
  /** Idle keep-alive connections are closed after this long (Node's default is 5 s). */
  keepAliveTimeoutMs: number;
  /** A request's headers must have arrived within this long; above the keep-alive timeout. */
  headersTimeoutMs: number;
}

/** The configured defaults, for callers (tests) without a loaded config: a listening server is always set up as deployed. */
const DEFAULT_TIMEOUTS = httpTimeouts({ HTTP_KEEP_ALIVE_TIMEOUT_MS: ConfigSchema.shape.HTTP_KEEP_ALIVE_TIMEOUT_MS.parse(undefined) });

/**
 * Listens on host:port and resolves once the socket is bound (port 0 picks a free one); a port
 * that cannot be bound (in use, not permitted) rejects with the system error instead of crashing.
 * The keep-alive and headers timeouts are set for life behind a proxy (domain/kernel/config.ts).
 */
export function listen(
  app: Hono<AppEnv>,
  port: number,
  hostname: string,
  timeouts: HttpTimeouts = DEFAULT_TIMEOUTS,
): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    // Without createServer/serverOptions, @hono/node-server serves plain HTTP/1.1: a node:http Server.
    const server = serve(
      {
        fetch: app.fetch,
        port,
        hostname,
        // Given to http.createServer, which checks them together (headersTimeout <= requestTimeout).
        serverOptions: { keepAliveTimeout: timeouts.keepAliveTimeoutMs, headersTimeout: timeouts.headersTimeoutMs },
      },
      (info) => {
        server.off('error', reject);
        resolve({ server, port: info.port });
      },
    ) as Server;
    server.once('error', reject);
  });
}
