import type pino from 'pino';
import { isDatabaseUnavailable } from '../domain/db/errors.ts';
import { DomainError } from '../domain/kernel/errors.ts';

/**
 * What an error no layer answered becomes, on every surface (REST, MCP): the database being
 * unreachable (restarting, crashed, refusing connections) is the catalogue's 503, which the caller
 * may retry; anything else is its 500. Logged here, once per request.
 */
export function unexpectedError(error: unknown, logger: pino.Logger, requestId: string): DomainError {
  if (isDatabaseUnavailable(error)) {
    // Expected while the database restarts, possibly for every request: one line each, no stack.
    logger.warn({ request_id: requestId, reason: error instanceof Error ? error.message.trim() : String(error) }, 'database unavailable');
    return new DomainError('SERVICE_UNAVAILABLE');
  }
  logger.error({ err: error, request_id: requestId }, 'unhandled error');
  return new DomainError('INTERNAL_ERROR');
}
