import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.ts';

/**
 * Listens on host:port and resolves once the socket is bound (port 0 picks a free one); a port
 * that cannot be bound (in use, not permitted) rejects with the system error instead of crashing.
 */
export function listen(app: Hono<AppEnv>, port: number, hostname: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    // Without createServer/serverOptions, @hono/node-server serves plain HTTP/1.1: a node:http Server.
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      server.off('error', reject);
      resolve({ server, port: info.port });
    }) as Server;
    server.once('error', reject);
  });
}
