import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type InitializeResult,
  type ListToolsResult,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal, Services } from '../domain/context.ts';
import { chargeRequest } from '../pipeline/rate-limit.ts';
import { API_VERSION } from '../domain/kernel/version.ts';
import type { Caller } from './call-tool.ts';
import type { Connection } from './connection.ts';
import { asProtocolError } from './map-error.ts';

export type HandlerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const SERVER_INFO = { name: 'accounting-platform', title: 'Accounting platform API', version: API_VERSION };

/** What a tool call may ask of its connection. */
export interface CallContext {
  /** The caller (key, services, request id), established by the transport. */
  caller(): Promise<Caller>;
  /** Counts a call that runs no operation (search, describe, enable a toolset) against the key's window. */
  charge(): Promise<void>;
  /** Tells the client the tool list changed (stdio's dynamic toolsets). */
  listChanged(): Promise<void>;
}

/** The tools one connection sees: every operation, the discovery trio, or dynamic toolsets. */
export interface ToolSurface {
  list(): ListToolsResult;
  call(name: string, args: Record<string, unknown>, context: CallContext): Promise<CallToolResult>;
  /** Whether the list can change during a session (announced as tools.listChanged). */
  readonly listChanges: boolean;
}

// The Server builds a fresh Ajv (with formats) per construction unless given one. We never ask
// clients for schema-validated input, so one shared instance does.
const VALIDATOR = new AjvJsonSchemaValidator();

/**
 * What one request may see and call. Over HTTP a single Server answers every request, so these
 * are read per request from what the transport put in `extra` (the request's authInfo); over
 * stdio they are the session's, the same for every call.
 */
export interface ServerOptions {
  /** Whether tool lists can change during a session (stdio's dynamic toolsets). */
  listChanges: boolean;
  /** Whether prompts and resources are offered (each connection then carries its content). */
  content: boolean;
  /** The connection a request is served by: its tools, instructions and content. */
  connection(extra: HandlerExtra): Connection;
  /** The caller of one request: from the transport's authInfo (HTTP), or the configured key (stdio). */
  caller(extra: HandlerExtra): Promise<Caller>;
  /** Counts one request that runs no operation against the caller's key; throws when its window is spent. */
  charge(extra: HandlerExtra): Promise<void>;
}

/**
 * A low-level `Server` over precomputed data (McpServer would convert every tool's zod schemas on
 * each construction). Over HTTP it is built once per process and answers every request
 * (DESIGN.md §12). Every request that runs no operation — initialize, the lists, prompts and
 * resources — is counted against the key's rate-limit window, as each costs a key lookup.
 */
export function buildServer(options: ServerOptions): Server {
  const capabilities: ServerCapabilities = {
    tools: { listChanged: options.listChanges },
    ...(options.content && { prompts: { listChanged: false }, resources: { listChanged: false } }),
  };
  const server = new Server(SERVER_INFO, { capabilities, jsonSchemaValidator: VALIDATOR });

  /** Counts the request first; a spent window is a JSON-RPC error carrying the catalogue body (see chargeCaller). */
  const counted = async <R>(extra: HandlerExtra, answer: () => R | Promise<R>): Promise<R> => {
    await options.charge(extra);
    return answer();
  };
  const contentOf = (extra: HandlerExtra) => {
    const { content } = options.connection(extra);
    if (!content) throw new Error('MCP connection without the content its server offers');
    return content;
  };

  // Replaces the SDK's own initialize handler to count it and to send the connection's
  // instructions; the answer is the SDK's, field for field.
  server.setRequestHandler(InitializeRequestSchema, (request, extra) =>
    counted(
      extra,
      (): InitializeResult => ({
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(request.params.protocolVersion) ? request.params.protocolVersion : LATEST_PROTOCOL_VERSION,
        capabilities,
        serverInfo: SERVER_INFO,
        instructions: options.connection(extra).instructions,
      }),
    ),
  );
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => counted(extra, () => options.connection(extra).tools.list()));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    let caller: Promise<Caller> | undefined;
    const context: CallContext = {
      caller: () => (caller ??= options.caller(extra)),
      charge: () => options.charge(extra),
      listChanged: () => server.sendToolListChanged(),
    };
    return options.connection(extra).tools.call(request.params.name, request.params.arguments ?? {}, context);
  });

  if (options.content) {
    server.setRequestHandler(ListPromptsRequestSchema, (_request, extra) => counted(extra, () => contentOf(extra).listPrompts()));
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
      counted(extra, () => contentOf(extra).getPrompt(request.params.name, request.params.arguments ?? {})),
    );
    server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) => counted(extra, () => contentOf(extra).listResources()));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (_request, extra) => counted(extra, () => contentOf(extra).listResourceTemplates()));
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => counted(extra, () => contentOf(extra).readResource(request.params.uri)));
  }
  return server;
}

/** Counts one request of an authenticated caller (anonymous ones have no window); see asProtocolError. */
export async function chargeCaller(services: Services, principal: Principal | null, requestId: string): Promise<void> {
  if (!principal) return;
  try {
    await chargeRequest(services, principal);
  } catch (error) {
    throw asProtocolError(error, requestId, services.config.PUBLIC_BASE_URL);
  }
}
