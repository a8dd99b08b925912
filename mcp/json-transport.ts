import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { MAX_BATCH_SIZE, readRequestBody, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js';
import {
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC error the HTTP layer answers with (`id: null`), as the SDK's transport words them. */
export interface PostError {
  status: number;
  code: number;
  message: string;
}

export type McpPost = { ok: true; messages: JSONRPCMessage[] } | { ok: false; error: PostError };

const fail = (status: number, code: number, message: string): McpPost => ({ ok: false, error: { status, code, message } });

/**
 * Reads and checks one Streamable HTTP POST the way the SDK's transport does (Accept, media type,
 * size, JSON, JSON-RPC shape, batch size, protocol version), without acting on it. Never throws.
 */
export async function readMcpPost(req: Request, maxBytes: number): Promise<McpPost> {
  const accept = req.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return fail(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(req.headers.get('content-type'))) {
    return fail(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  }
  let raw: unknown;
  try {
    const declared = req.headers.get('content-length');
    let text: string;
    if (declared !== null && Number(declared) <= maxBytes) {
      // The parser holds a body to its declared length, so text() needs no limit of its own (and
      // on @hono/node-server it reads the socket directly instead of building a web stream).
      text = await req.text();
    } else {
      const body = await readRequestBody(req, maxBytes); // refuses as bytes arrive
      if (body.tooLarge) return fail(413, -32000, requestBodyTooLargeMessage(maxBytes));
      text = body.text;
    }
    raw = JSON.parse(text);
  } catch {
    return fail(400, -32700, 'Parse error: Invalid JSON');
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
    return fail(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  }
  let messages: JSONRPCMessage[];
  try {
    messages = Array.isArray(raw) ? raw.map(checkMessage) : [checkMessage(raw)];
  } catch {
    return fail(400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  const initializing = messages.some((m) => 'method' in m && m.method === 'initialize');
  if (initializing && messages.length > 1) return fail(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  const version = req.headers.get('mcp-protocol-version');
  if (!initializing && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return fail(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
  }
  return { ok: true, messages };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * One message, checked as JSONRPCMessageSchema would. The usual one — a request with an id, a
 * method and object params, nothing else — is recognised by its shape without a schema parse
 * (the Server parses its params against the method's own schema anyway); anything else is parsed.
 */
function checkMessage(message: unknown): JSONRPCMessage {
  if (typeof message === 'object' && message !== null && !Array.isArray(message)) {
    const m = message as Record<string, unknown>;
    const params = m.params;
    if (
      m.jsonrpc === '2.0' &&
      typeof m.method === 'string' &&
      (typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id))) &&
      (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params))) &&
      Object.keys(m).every((key) => REQUEST_KEYS.has(key))
    ) {
      return m as JSONRPCMessage;
    }
  }
  return JSONRPCMessageSchema.parse(message);
}

interface Pending {
  originalId: RequestId;
  settle(response: JSONRPCMessage): void;
}

/**
 * Streamable HTTP in stateless JSON mode for one long-lived Server. The SDK's own transport must
 * be created per request when stateless, so every request built a Server, connected it and tore
 * it down again (a Connection-closed McpError and an aborted signal's DOMException each time).
 * This transport is connected once; each HTTP request hands it its checked messages and awaits
 * the responses. Request ids are renumbered on the way in — two clients may both send id 1 — and
 * restored on the way out.
 */
export class SharedJsonTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.pending.clear();
    this.onclose?.();
  }

  /** Responses go back to the HTTP request that asked; with no stream to carry them, anything else is dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message || !('id' in message)) return;
    const id = message.id as number;
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.settle({ ...message, id: entry.originalId });
  }

  /**
   * Delivers one POST's messages; resolves to the JSON body to answer (one response, or an array
   * for a batch of several requests), or null when it held no requests (HTTP 202).
   */
  async dispatch(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage | JSONRPCMessage[] | null> {
    const answers: Promise<JSONRPCMessage>[] = [];
    for (const message of messages) {
      // Already checked against JSONRPCMessageSchema: a method with an id is a request, one
      // without is a notification (the SDK's type guards would parse each message again).
      if (!('method' in message)) continue; // a response: we never send requests to answer
      if ('id' in message) {
        const id = this.nextId++;
        answers.push(new Promise((settle) => this.pending.set(id, { originalId: message.id, settle })));
        this.onmessage?.({ ...message, id }, extra);
      } else if (message.method !== 'notifications/cancelled') {
        // A cancellation names an id of another, finished HTTP request: there is nothing to cancel.
        this.onmessage?.(message, extra);
      }
    }
    if (answers.length === 0) return null;
    const responses = await Promise.all(answers);
    return responses.length === 1 ? (responses[0] as JSONRPCMessage) : responses;
  }
}
