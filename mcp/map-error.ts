import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG, errorBody } from '../registry/error-catalog.ts';
import { unexpectedError } from '../pipeline/unexpected-error.ts';

/**
 * The catalogue decides: a `tool` error goes back to the model as an `isError` result whose text is
 * the error body REST sends (code, message, recovery_hint, valid_alternatives, required_scope, …)
 * in MCP's words, so the model can read it and recover; a `protocol` error is a JSON-RPC error for
 * the client, not the model. The body is text only: structuredContent must match the tool's output
 * schema, which describes success data.
 */
export function toolError(
  error: DomainError,
  requestId: string,
  publicBaseUrl: string,
  speak: (text: string) => string = (text) => text,
  /** Replaces the catalogue's hint where the surface knows better (an unknown operation name is not an unknown id). */
  recoveryHint?: string,
): CallToolResult {
  const body = errorBody(error, requestId, publicBaseUrl, 'mcp');
  body.error.message = speak(body.error.message);
  body.error.recovery_hint = speak(recoveryHint ?? body.error.recovery_hint);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** A JSON-RPC error carrying the catalogue body (recovery_hint, valid_alternatives) as its data. */
export const protocolError = (code: number, error: DomainError, requestId: string, publicBaseUrl: string): McpError =>
  new McpError(code, error.message, errorBody(error, requestId, publicBaseUrl, 'mcp').error);

/** Maps anything a call threw. Unexpected errors are logged and answered as SERVICE_UNAVAILABLE or INTERNAL_ERROR. */
export function mapCallError(
  error: unknown,
  requestId: string,
  services: Pick<Services, 'logger' | 'config'>,
  speak?: (text: string) => string,
): CallToolResult {
  const base = services.config.PUBLIC_BASE_URL;
  if (error instanceof McpError) throw error;
  if (error instanceof DomainError) {
    if (ERROR_CATALOG[error.code].mcp === 'protocol') throw protocolError(ErrorCode.InvalidRequest, error, requestId, base);
    return toolError(error, requestId, base, speak);
  }
  // Internals never reach the caller: logged, answered with the catalogue's 503 or 500.
  return toolError(unexpectedError(error, services.logger, requestId), requestId, base);
}

/**
 * Unknown tool, or one outside this connection's toolsets or read-only mode: a protocol error (MCP
 * spec), still with a recovery hint and the closest tool names as alternatives.
 */
export function unknownTool(name: string, offered: readonly string[], requestId: string, publicBaseUrl: string): McpError {
  const error = new DomainError('NOT_FOUND', {
    message: `Unknown tool: ${name}. Call tools/list for the tools this connection offers (toolsets and read-only mode apply).`,
    validAlternatives: closest(name, offered),
  });
  const mcpError = protocolError(ErrorCode.InvalidParams, error, requestId, publicBaseUrl);
  (mcpError.data as { recovery_hint: string }).recovery_hint = 'Call tools/list and use one of the names it lists; valid_alternatives has the closest ones.';
  return mcpError;
}

/** Up to five names sharing the most words with `name` (`companies.lst` → companies.list …). */
export function closest(name: string, offered: readonly string[], max = 5): string[] {
  const words = (s: string) =>
    new Set(
      s
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    );
  const wanted = words(name);
  const score = (candidate: string) => {
    const have = words(candidate);
    let shared = 0;
    for (const w of wanted) if (have.has(w) || [...have].some((h) => h.startsWith(w.slice(0, 4)) && w.length >= 4)) shared += 1;
    return shared;
  };
  return offered
    .map((candidate) => ({ candidate, score: score(candidate) }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.candidate.localeCompare(b.candidate))
    .slice(0, max)
    .map((c) => c.candidate);
}

/** A catalogue error where there is no tool result to carry it: a JSON-RPC error whose data is the catalogue body. */
export function asProtocolError(error: unknown, requestId: string, publicBaseUrl: string): unknown {
  return error instanceof DomainError ? protocolError(ErrorCode.InvalidRequest, error, requestId, publicBaseUrl) : error;
}
