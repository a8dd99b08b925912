import type pino from 'pino';
import type { DomainError } from '../domain/kernel/errors.ts';
import { formatTruncated, truncateAddress } from './client-address.ts';

export type DenialReason = 'missing_token' | 'invalid_token' | 'insufficient_scope' | 'membership' | 'validation' | 'host_or_origin';

/** What a surface knows about a denied request. */
export interface DenialFacts {
  requestId: string;
  /** Socket address (HTTP) or null (stdio): only its /24 or /48 prefix is logged. */
  address: string | null | undefined;
  userAgent: string | null;
  apiKeyId: string | null;
  /** MCP names itself and its transport (and the tool); REST names the method and path. */
  mcp?: { transport: 'http' | 'stdio'; tool?: string };
  http?: { method: string; path: string };
}

/**
 * The one denial log line of every surface (spec Authentication 5): the source address truncated
 * (IPv4 /24, IPv6 /48) and the user agent — enough to spot abuse, not enough to identify a person
 * — and never the key itself.
 */
export function logDenial(logger: pino.Logger, facts: DenialFacts, reason: DenialReason, error?: DomainError): void {
  const stdio = facts.mcp?.transport === 'stdio';
  logger.warn(
    {
      event: 'request_denied',
      ...(facts.mcp && { surface: 'mcp', transport: facts.mcp.transport }),
      reason,
      code: error?.code,
      request_id: facts.requestId,
      ...(facts.http && { method: facts.http.method, path: facts.http.path }),
      ...(facts.mcp && { tool: facts.mcp.tool }),
      client: stdio ? 'stdio' : formatTruncated(truncateAddress(facts.address)),
      user_agent: facts.userAgent,
      api_key_id: facts.apiKeyId,
    },
    'request denied',
  );
}
