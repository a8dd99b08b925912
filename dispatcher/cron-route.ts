import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import type { Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { envelope } from '../http/envelope.ts';
import { errorResponse } from '../http/error-response.ts';
import { readBearer } from '../http/bearer.ts';
import { securityHeaders } from '../http/security-headers.ts';
import type { AppEnv } from '../http/app-env.ts';
import { OPERATION_LABELS } from '../http/request-metrics.ts';
import { tick, type OutcomeObserver } from './tick.ts';
import { senderFor } from './worker.ts';
import type { Sender } from './send.ts';

export const CRON_PATH = '/api/webhooks/dispatch/cron';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Constant-time comparison of the bearer token with the configured secret. */
function authorised(header: string | undefined, secret: string): boolean {
  const bearer = readBearer(header);
  const token = bearer.kind === 'token' ? bearer.token : '';
  return timingSafeEqual(digest(token), digest(secret));
}

/**
 * `POST /api/webhooks/dispatch/cron` with `Authorization: Bearer <CRON_SECRET>`: one tick
 * (recover, claim 50, send), answering `{ data: { picked, delivered, failed, dead, recovered },
 * meta }` with the API's headers (Service-Version and the security headers), like every other
 * route. Without a configured secret the route is not mounted at all (fail closed).
 */
export function cronRoute(options: { sender?: Sender; onOutcomes?: OutcomeObserver } = {}) {
  return (app: Hono<AppEnv>, services: Services): void => {
    const secret = services.config.CRON_SECRET;
    if (!secret) {
      services.logger.info('CRON_SECRET is not set: the dispatch cron route is disabled');
      return;
    }
    const sender = options.sender ?? senderFor(services);
    app.post(CRON_PATH, securityHeaders({ robotsTag: true }), async (c) => {
      c.set('operationLabel', OPERATION_LABELS.cron);
      if (!authorised(c.req.header('authorization'), secret)) {
        return errorResponse(c, new DomainError('UNAUTHENTICATED', { message: 'Invalid cron secret.' }), services.config.PUBLIC_BASE_URL);
      }
      const summary = await tick(services, sender);
      services.logger.info({ ...summary }, 'cron dispatch tick');
      const { picked, delivered, failed, dead, recovered } = summary;
      options.onOutcomes?.({ delivered, failed, dead, recovered });
      return c.json(envelope({ picked, delivered, failed, dead, recovered }, c.get('requestId')));
    });
  };
}
