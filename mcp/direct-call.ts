import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, ToolSurface } from './build-server.ts';

/** A tools/call the HTTP route can answer without the SDK's Protocol machinery. */
export interface LoneToolCall {
  id: RequestId;
  name: string;
  args: Record<string, unknown>;
}

const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The params of a POST's only message when it is a tools/call with object params; null otherwise. */
export function soleToolCall(messages: readonly JSONRPCMessage[]): { message: JSONRPCMessage; params: Record<string, unknown> } | null {
  if (messages.length !== 1) return null;
  const message = messages[0]!;
  if (!('method' in message) || message.method !== 'tools/call' || !isPlainObject(message.params)) return null;
  return { message, params: message.params };
}

/**
 * The POST's one message when it is a plain tools/call: a request whose params are a string name,
 * optional object arguments and optional `_meta` without a progress token — nothing the SDK's
 * Protocol would act on (progress, tasks, cancellation). Anything else goes through the Server.
 */
export function loneToolCall(messages: readonly JSONRPCMessage[]): LoneToolCall | null {
  const call = soleToolCall(messages);
  const id = call && 'id' in call.message ? call.message.id : undefined;
  if (!call || id === undefined) return null;
  const { params } = call;
  if (typeof params.name !== 'string' || !Object.keys(params).every((key) => PARAM_KEYS.has(key))) return null;
  const args = params.arguments ?? {};
  if (!isPlainObject(args)) return null;
  if (params._meta !== undefined && (!isPlainObject(params._meta) || 'progressToken' in params._meta)) return null;
  return { id, name: params.name, args };
}

/**
 * Answers a lone tools/call as the Server's tools/call handler would (same ToolSurface, same
 * context), and a thrown error as the SDK's Protocol words it. What this skips is per-call work
 * with nothing to do here: re-parsing the request and the result with zod (both are ours and
 * typed), an AbortController, and the id bookkeeping of a shared transport — about a sixth of a
 * call's CPU time (docs/performance.md).
 */
export async function answerToolCall(call: LoneToolCall, tools: ToolSurface, context: CallContext): Promise<JSONRPCMessage> {
  try {
    const result = await tools.call(call.name, call.args, context);
    return { jsonrpc: '2.0', id: call.id, result };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return {
      jsonrpc: '2.0',
      id: call.id,
      error: {
        code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError,
        message: typeof message === 'string' ? message : 'Internal error',
        ...(data !== undefined && { data }),
      },
    };
  }
}
