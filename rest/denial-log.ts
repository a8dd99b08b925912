import type { Context } from 'hono';
import type { DomainError } from '../domain/kernel/errors.ts';
import type { Services } from '../domain/kernel/context.ts';
import { formatTruncated, truncateAddress } from '../domain/kernel/client-address.ts';
import type { AppEnv } from '../registry/http/app-env.ts';
import { loggedHeader } from '../registry/http/logged-header.ts';

export type DenialReason = 'missing_token' | 'invalid_token' | 'insufficient_scope' | 'membership' | 'validation';

/**
 * Logs a denied request with the source address truncated (IPv4 /24, IPv6 /48) and the user
 * agent: enough to spot abuse, not enough to identify a person.
 */
export function logDenial(services: Services, c: Context<AppEnv>, reason: DenialReason, error?: DomainError): void {
  const address = c.env?.incoming?.socket?.remoteAddress;
  services.logger.warn(
    {
      event: 'request_denied',
      reason,
      code: error?.code,
      request_id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      client: formatTruncated(truncateAddress(address)),
      user_agent: loggedHeader(c.req.header('user-agent')),
      api_key_id: c.get('principal')?.apiKeyId ?? c.get('attributedApiKeyId') ?? null,
    },
    'request denied',
  );
}
