import type pino from 'pino';
import type { DomainError } from '../domain/kernel/errors.ts';
import { formatTruncated, truncateAddress } from '../domain/kernel/client-address.ts';

export type McpDenialReason = 'missing_token' | 'invalid_token' | 'insufficient_scope' | 'membership' | 'validation' | 'host_or_origin';

export interface DenialFacts {
  requestId: string;
  /** Socket address (HTTP) or null (stdio): only its /24 or /48 prefix is logged. */
  address: string | null | undefined;
  userAgent: string | null;
  apiKeyId: string | null;
  transport: 'http' | 'stdio';
  tool?: string;
}

/** Denials logged as REST logs them (spec Authentication 5): truncated address and user agent, never the key. */
export function logMcpDenial(logger: pino.Logger, facts: DenialFacts, reason: McpDenialReason, error?: DomainError): void {
  logger.warn(
    {
      event: 'request_denied',
      surface: 'mcp',
      transport: facts.transport,
      reason,
      code: error?.code,
      request_id: facts.requestId,
      tool: facts.tool,
      client: facts.transport === 'stdio' ? 'stdio' : formatTruncated(truncateAddress(facts.address)),
      user_agent: facts.userAgent,
      api_key_id: facts.apiKeyId,
    },
    'request denied',
  );
}
