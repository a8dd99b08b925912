import type { Principal, Services } from '../domain/kernel/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { consumeRateLimit } from '../domain/ratelimit/consume.ts';

/**
 * Counts one request of an authenticated caller against its key's window, for requests that cost a
 * key lookup but run no operation (MCP `initialize`, `tools/list`, …): the same counter invoke()
 * advances for every operation, so listing cannot be used to hammer the key store for free.
 * Throws RATE_LIMITED once the window is used up.
 */
export async function chargeRequest(services: Services, principal: Principal): Promise<void> {
  const decision = await consumeRateLimit(services.database.prisma, principal.apiKeyId, principal.rateLimitPerMinute, services.now());
  if (!decision.allowed) throw new DomainError('RATE_LIMITED');
}
