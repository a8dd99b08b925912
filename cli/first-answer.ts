import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The longest the background loops wait for a first request after the server listens. Not a
 * measured figure: long enough for a client polling health at start (issue 30's first 200), short
 * enough that a server nobody calls still starts delivering within about a second.
 */
export const FIRST_ANSWER_WAIT_MS = 1_000;

/**
 * Resolves when the server has answered its first request (the response closed), or after
 * `maxWaitMs` without one. `npm start` starts the delivery and operation loops then: their first
 * claims and LISTENs (150-180 ms each on PGlite's one connection) otherwise queue ahead of the
 * first request. Either way the loops start; only when, not whether, depends on the clock.
 */
export function firstAnswered(server: Server, maxWaitMs = FIRST_ANSWER_WAIT_MS): Promise<void> {
  return new Promise((resolve) => {
    const open = (): void => {
      clearTimeout(timer);
      server.off('request', onRequest);
      resolve();
    };
    const onRequest = (_request: IncomingMessage, response: ServerResponse): void => {
      response.once('close', open);
    };
    const timer = setTimeout(open, maxWaitMs);
    // Never what keeps a stopping process alive.
    timer.unref();
    server.on('request', onRequest);
  });
}
