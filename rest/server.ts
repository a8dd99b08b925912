import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from '../registry/http/app-env.ts';

/** Listens on host:port and resolves once the socket is bound (port 0 picks a free one). */
export function listen(app: Hono<AppEnv>, port: number, hostname: string): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => resolve({ server, port: info.port }));
  });
}
