import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { API_VERSION } from '../domain/kernel/version.ts';
import { callTool, type Caller } from './call-tool.ts';
import { unknownTool } from './map-error.ts';
import type { ToolEntry } from './tools.ts';

export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const SERVER_INFO = { name: 'accounting-platform', title: 'Accounting platform API', version: API_VERSION };

// Sent once per session in the initialize result: the two habits that save an agent most calls.
const INSTRUCTIONS =
  'Bookkeeping API for the companies your API key can reach. List your companies first to get company ids; never guess ids. ' +
  'A failed call returns JSON with code, message and recovery_hint: follow the hint (required_scope names a missing scope).';

// The Server builds a fresh Ajv (with formats) per construction unless given one: ~150 µs of a
// ~200 µs construction. We never ask clients for schema-validated input, so one shared instance does.
const VALIDATOR = new AjvJsonSchemaValidator();

export interface ServerOptions {
  /** Tools this connection may call (its toolsets and read-only mode). */
  tools: ReadonlyMap<string, ToolEntry>;
  /** The precomputed tools/list answer for this connection's key. */
  list: ListToolsResult;
  /** The caller of one tools/call: from the transport's authInfo (HTTP), or the configured key (stdio). */
  caller(extra: HandlerExtra): Promise<Caller>;
}

/**
 * A low-level `Server` with two handlers over precomputed data. McpServer would convert every
 * tool's zod schemas on each construction; here a construction is a few closures, cheap enough
 * to make one per stateless HTTP request (DESIGN.md §12).
 */
export function buildServer(options: ServerOptions): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => options.list);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = options.tools.get(request.params.name);
    if (!entry) throw unknownTool(request.params.name);
    return callTool(entry, request.params.arguments ?? {}, await options.caller(extra));
  });
  return server;
}
