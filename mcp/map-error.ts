import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type pino from 'pino';
import { DomainError } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG, errorBody } from '../registry/error-catalog.ts';

/**
 * The catalogue decides: a `tool` error goes back to the model as an `isError` result whose text is
 * the same error body REST sends (code, message, recovery_hint, required_scope, …), so the model can
 * read it and recover; a `protocol` error is a JSON-RPC error for the client, not the model.
 * The body is text only: structuredContent must match the tool's output schema, which describes
 * success data.
 */
export function toolError(error: DomainError, requestId: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(error, requestId)) }] };
}

/** Maps anything a call threw. Unexpected errors are logged and answered as the catalogue's INTERNAL_ERROR. */
export function mapCallError(error: unknown, requestId: string, logger: pino.Logger): CallToolResult {
  if (error instanceof McpError) throw error;
  if (error instanceof DomainError) {
    if (ERROR_CATALOG[error.code].mcp === 'protocol') {
      throw new McpError(ErrorCode.InvalidRequest, error.message, errorBody(error, requestId).error);
    }
    return toolError(error, requestId);
  }
  // Internals never reach the caller: log everything, answer with the catalogue's generic error.
  logger.error({ err: error, request_id: requestId }, 'unhandled MCP tool error');
  return toolError(new DomainError('INTERNAL_ERROR'), requestId);
}

/** Unknown tool or one outside this connection's toolsets / read-only mode: a protocol error (MCP spec). */
export const unknownTool = (name: string): McpError =>
  new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the tools this connection offers (toolsets and read-only mode apply).`);
