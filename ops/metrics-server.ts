import { createServer, type Server } from 'node:http';
import type pino from 'pino';
import type { Metrics } from './metrics.ts';

export const METRICS_PATH = '/metrics';

/**
 * The metrics endpoint on a port of its own (METRICS_PORT), never the public API's: one path,
 * `GET /metrics`, answered from the registry. Resolves once the socket is bound (port 0 picks a
 * free one); a port that cannot be bound rejects with the system error.
 */
export function startMetricsServer(metrics: Metrics, port: number, host: string, logger: pino.Logger): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`Not found: metrics are at ${METRICS_PATH}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }).end('Use GET.\n');
      return;
    }
    metrics.text().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics: collection failed');
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics collection failed; see the server log.\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
  });
}
