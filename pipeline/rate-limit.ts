import { admit, type Admission } from '../domain/apikeys/admit.ts';
import type { Principal, Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';

/** RATE_LIMITED once an admission's count is past its key's limit. */
export function assertWithinRateLimit(admission: Admission): void {
  if (admission.requestCount > admission.principal.rateLimitPerMinute) throw new DomainError('RATE_LIMITED');
}

/**
 * Counts one request of an authenticated caller against its key's window, for requests that cost a
 * key lookup but run no operation and arrive without an admission of their own (stdio's
 * `initialize`, `tools/list`, …): the same counter every operation advances, so listing cannot be
 * used to hammer the key store for free. Throws UNAUTHENTICATED once the key is revoked and
 * RATE_LIMITED once the window is used up.
 */
export async function chargeRequest(services: Services, principal: Principal): Promise<void> {
  const admission = await admit(
    services.database.sql,
    { apiKeyId: principal.apiKeyId },
    {
      companyId: null,
      now: services.now(),
      defaultRateLimit: services.config.RATE_LIMIT_PER_MINUTE,
    },
  );
  if (!admission) throw new DomainError('UNAUTHENTICATED', { message: 'The API key is invalid or revoked.' });
  assertWithinRateLimit(admission);
}
