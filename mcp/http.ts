import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Admission } from '../domain/apikeys/admit.ts';
import { admitBearer } from '../pipeline/admit-bearer.ts';
import { acceptedAudiences, bearerChallenge, MCP_PATH } from '../http/oauth/resources.ts';
import type { Principal } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { errorBody, errorHeaders } from '../registry/error-catalog.ts';
import { registry } from '../registry/index.ts';
import type { RouteModule } from '../http/app-env.ts';
import { readBearer } from '../http/bearer.ts';
import { MAX_BODY_BYTES } from '../registry/body-limit.ts';
import { loggedHeader } from '../http/logged-header.ts';
import { assertWithinRateLimit } from '../pipeline/rate-limit.ts';
import type { HandlerExtra } from './build-server.ts';
import { asProtocolError } from './map-error.ts';
import type { Caller } from './call-tool.ts';
import { connection, HTTP_MODES, resolveMode, type Connection, type Mode } from './connection.ts';
import type { McpContentSources } from './content.ts';
import { logDenial, type DenialFacts, type DenialReason } from '../http/denial-log.ts';
import { SECURITY_HEADERS } from '../http/security-headers.ts';
import { NO_REQUEST_METRICS, OPERATION_LABELS, type RequestMetrics } from '../http/request-metrics.ts';
import { hostPolicy } from './dns-rebinding.ts';
import { answerToolCall, loneToolCall, soleToolCall } from './direct-call.ts';
import { readMcpPost, SharedJsonTransport, type PostError } from './json-transport.ts';
import { ToolIndex, type ToolEntry } from './tools.ts';
import { MCP_OPTIONS, MCP_QUERY_PARAMETERS, type McpOptionName } from '../registry/mcp-options.ts';
import { configuredToolsets, resolveSelection, selectionKey, type Selection } from './toolsets.ts';
import { REQUEST_ID_HEADER } from '../http/response-headers.ts';

export { MCP_PATH };

// The API's security headers, minus X-Robots-Tag; no-store because answers carry tenant data.
// Assembled once; a response adds its request id.
const HEADERS: Readonly<Record<string, string>> = Object.freeze({ ...SECURITY_HEADERS, 'Cache-Control': 'no-store' });
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'Content-Type': 'application/json', ...HEADERS });

/** What the one shared Server needs to answer one HTTP request; it rides in the SDK's authInfo. */
interface RequestScope {
  connection: Connection;
  caller(): Caller;
  /** Throws RATE_LIMITED (as a JSON-RPC error) when the admission that counted this request found the window spent. */
  charge(): void;
}

// Selections are few (mode × toolsets × read-only × variant), connections a selection per scope
// set; the caps only guard against junk queries and many differently scoped keys.
const MAX_SELECTIONS = 256;
const MAX_CONNECTIONS = 1024;

const toAuthInfo = (token: string, principal: Principal, scope: RequestScope): AuthInfo => ({
  token,
  clientId: principal.apiKeyId,
  scopes: principal.scopes,
  extra: { principal, scope },
});
const scopeOf = (extra: HandlerExtra): RequestScope => {
  const scope = extra.authInfo?.extra?.scope as RequestScope | undefined;
  if (!scope) throw new Error('MCP request without its request scope');
  return scope;
};

/** The tool and arguments of a lone tools/call of an operation's tool; null for anything else. */
function operationToolCall(messages: readonly JSONRPCMessage[], tools: ReadonlyMap<string, ToolEntry> | null): { entry: ToolEntry; args: unknown } | null {
  const params = tools ? soleToolCall(messages)?.params : undefined;
  const entry = typeof params?.name === 'string' ? tools?.get(params.name) : undefined;
  return entry ? { entry, args: params?.arguments } : null;
}

/**
 * The path parameter a lone tools/call names (its company), so the admission that authenticates
 * the request answers tenancy in the same round trip. Anything else: none.
 */
function companyOf(call: { entry: ToolEntry; args: unknown } | null): string | null {
  const argument = call?.entry.argumentFor('params', 'companyId');
  if (!argument || typeof call?.args !== 'object' || call.args === null) return null;
  const companyId = (call.args as Record<string, unknown>)[argument];
  return typeof companyId === 'string' ? companyId : null;
}

/**
 * `/mcp`, Streamable HTTP in stateless JSON mode on the API's own Hono server. Order: Host/Origin
 * (403) → method (405: no GET stream, no DELETE session when stateless) → bearer key (401, as
 * REST; its admission also counts the request and, for a lone tools/call, answers tenancy) →
 * toolset selection (400) → the transport's own checks → one shared Server. The Server and the
 * validator are built once here, the tool index on the first request, and reused by every request.
 */
export interface McpRouteOptions {
  /** Prompts and resources (skills, event catalogue, OpenAPI), assembled by the entry point. */
  content?: McpContentSources;
  /** Where tool calls are counted (the HTTP request itself is counted by the access log). */
  metrics?: RequestMetrics;
}

export const mcpRoutes =
  (options: McpRouteOptions = {}): RouteModule =>
  (app, services) => {
    // Compiled on the first MCP request, not at start-up: turning every operation's zod schemas into
    // JSON Schema is the largest single cost of a start (a bad tool name still fails every MCP test).
    let compiled: ToolIndex | undefined;
    const toolIndex = (): ToolIndex => {
      compiled ??= new ToolIndex(registry.operations);
      return compiled;
    };
    configuredToolsets(services.config); // likewise a bad MCP_TOOLSETS
    const policy = hostPolicy(services.config);
    const transport = new SharedJsonTransport();
    transport.onerror = (error) => services.logger.debug({ err: error }, 'MCP transport error');
    // The SDK's Server (with its JSON Schema validator) is loaded and connected when a request first
    // needs it, not at start-up (issue 30); a lone tools/call is answered without it.
    let connected: Promise<void> | undefined;
    const serverConnected = (): Promise<void> => {
      connected ??= import('./build-server.ts').then(({ buildServer }) =>
        buildServer({
          listChanges: false, // no dynamic mode over stateless HTTP
          content: options.content !== undefined,
          connection: (extra) => scopeOf(extra).connection,
          caller: async (extra) => scopeOf(extra).caller(),
          charge: async (extra) => scopeOf(extra).charge(),
        }).connect(transport),
      );
      connected.catch(() => (connected = undefined));
      return connected;
    };
    // A request's mode and selection from its query, resolved once per distinct query (or the error it is).
    type Chosen = { mode: Mode; selection: Selection };
    const choices = new Map<string, Chosen | DomainError>();
    const choose = (raw: Record<string, string>): Chosen | DomainError => {
      const key = new URLSearchParams(raw).toString();
      let found = choices.get(key);
      if (!found) {
        try {
          const query = readOptions(raw);
          found = { selection: resolveSelection(services.config, query), mode: resolveMode(query.mode, HTTP_MODES) };
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          found = error;
        }
        if (choices.size >= MAX_SELECTIONS) choices.clear();
        choices.set(key, found);
      }
      return found;
    };
    // What a request is served, per mode, selection and scope set: stateless in HTTP modes, so shared.
    const connections = new Map<string, Connection>();
    const served = ({ mode, selection }: Chosen, scopes: readonly string[]): Connection => {
      const key = `${mode}|${selectionKey(selection)}|${scopes.join(',')}`;
      let found = connections.get(key);
      if (!found) {
        found = connection(toolIndex(), { mode, selection, scopes, content: options.content });
        if (connections.size >= MAX_CONNECTIONS) connections.clear();
        connections.set(key, found);
      }
      return found;
    };

    const metrics = options.metrics ?? NO_REQUEST_METRICS;
    const base = services.config.PUBLIC_BASE_URL;
    const audiences = acceptedAudiences(base, 'mcp');
    const challenge = (tokenSent: boolean): string => bearerChallenge(base, 'mcp', tokenSent);
    app.all(MCP_PATH, async (c) => {
      const requestId = c.get('requestId');
      // Metrics labels, until a lone tools/call names its operation below.
      c.set('surface', 'mcp');
      c.set('operationLabel', OPERATION_LABELS.mcp);
      const respond = (status: number, body: unknown, extra?: Record<string, string>): Response => {
        const fixed = body === null ? HEADERS : JSON_HEADERS;
        return new Response(body === null ? null : JSON.stringify(body), {
          status,
          headers: extra ? { ...fixed, [REQUEST_ID_HEADER]: requestId, ...extra } : { ...fixed, [REQUEST_ID_HEADER]: requestId },
        });
      };
      const domainError = (error: DomainError, extra?: Record<string, string>): Response => {
        const body = errorBody(error, requestId, services.config.PUBLIC_BASE_URL);
        return respond(body.error.status, body, { ...errorHeaders(error.code), ...extra });
      };
      const protocolError = (error: PostError): Response =>
        respond(error.status, { jsonrpc: '2.0', error: { code: error.code, message: error.message }, id: null });
      const facts = (apiKeyId: string | null): DenialFacts => ({
        requestId,
        address: c.env?.incoming?.socket?.remoteAddress,
        userAgent: loggedHeader(c.req.header('user-agent')),
        apiKeyId,
        mcp: { transport: 'http' },
      });
      const deny = (reason: DenialReason, error?: DomainError, apiKeyId: string | null = null): void =>
        logDenial(services.logger, facts(apiKeyId), reason, error);

      const host = c.req.header('host') ?? new URL(c.req.url).host;
      if (!policy.hostAllowed(host) || !policy.originAllowed(c.req.header('origin'))) {
        deny('host_or_origin');
        // A JSON-RPC error, as the SDK's own check answers: the caller is an MCP client, not a REST one.
        return protocolError({ status: 403, code: -32000, message: 'Forbidden: Host or Origin header not allowed.' });
      }
      if (c.req.method !== 'POST') {
        return domainError(
          new DomainError('METHOD_NOT_ALLOWED', {
            message: 'This MCP endpoint is stateless: send JSON-RPC with POST; it offers no GET stream and no sessions to DELETE.',
          }),
          { Allow: 'POST' },
        );
      }

      const unauthenticated = (missing: boolean): Response => {
        deny(missing ? 'missing_token' : 'invalid_token');
        // The challenge names the resource metadata: how an OAuth client finds our authorization server (MCP authorization spec).
        return domainError(new DomainError('UNAUTHENTICATED', { message: missing ? 'Missing bearer token.' : 'The API key is invalid or revoked.' }), {
          'WWW-Authenticate': challenge(!missing),
        });
      };
      const bearer = readBearer(c.req.header('authorization'));
      if (bearer.kind !== 'token') return unauthenticated(bearer.kind === 'missing');
      const { token } = bearer;

      // Read before admitting, so a lone tools/call's company is admitted in the same round trip;
      // any problem with the body is answered only once the key is known to be good.
      const chosen = choose(c.req.query());
      const tools = chosen instanceof DomainError || chosen.mode !== 'tools' ? null : toolIndex().tools(chosen.selection);
      const post = await readMcpPost(c.req.raw, MAX_BODY_BYTES);
      const call = post.ok ? operationToolCall(post.messages, tools) : null;
      if (call) c.set('operationLabel', call.entry.op.id);
      const admission: Admission | null = await admitBearer(services, token, audiences, companyOf(call));
      if (!admission) return unauthenticated(false);
      const { principal } = admission;
      c.set('principal', principal);
      if (chosen instanceof DomainError) {
        deny('validation', chosen, principal.apiKeyId);
        return domainError(chosen);
      }
      if (!post.ok) {
        services.logger.debug({ request_id: requestId, status: post.error.status }, 'MCP transport rejected a request');
        return protocolError(post.error);
      }

      // The admission counted this request; the first tool call it carries uses it, later ones in a
      // batch are admitted (and counted) on their own by invoke().
      let unused: Admission | undefined = admission;
      const scope: RequestScope = {
        connection: served(chosen, principal.scopes),
        charge: () => {
          try {
            assertWithinRateLimit(admission);
          } catch (error) {
            throw asProtocolError(error, requestId, services.config.PUBLIC_BASE_URL);
          }
        },
        caller: () => {
          const first = unused;
          unused = undefined;
          return { services, principal, requestId, admission: first, onDenial: (kind, error) => deny(kind, error, principal.apiKeyId), metrics };
        },
      };
      const direct = loneToolCall(post.messages);
      let caller: Promise<Caller> | undefined; // one caller per call, as the Server's handler keeps it
      const body = direct
        ? await answerToolCall(direct, scope.connection.tools, {
            caller: () => (caller ??= Promise.resolve(scope.caller())),
            charge: async () => scope.charge(),
            listChanged: async () => {}, // stateless HTTP lists never change (listChanges: false)
          })
        : await serverConnected().then(() => transport.dispatch(post.messages, { authInfo: toAuthInfo(token, principal, scope) }));
      return body === null ? respond(202, null) : respond(200, body);
    });
  };

/**
 * The connection options from `/mcp`'s query, named as MCP_OPTIONS declares them; a parameter it
 * does not declare is refused (strict at the edge), naming the ones it does.
 */
function readOptions(query: Record<string, string>): Partial<Record<McpOptionName, string>> {
  const unknown = Object.keys(query).filter((name) => !MCP_QUERY_PARAMETERS.includes(name));
  if (unknown.length > 0) {
    throw new DomainError('VALIDATION_ERROR', {
      message: `Unknown query parameter(s) ${unknown.join(', ')}; /mcp takes ${MCP_QUERY_PARAMETERS.join(', ')}.`,
      details: unknown.map((name) => ({ path: `query.${name}`, message: `Unknown query parameter; accepted: ${MCP_QUERY_PARAMETERS.join(', ')}.` })),
      validAlternatives: [...MCP_QUERY_PARAMETERS],
    });
  }
  const options = Object.entries(MCP_OPTIONS) as [McpOptionName, { query: string }][];
  return Object.fromEntries(options.map(([name, option]) => [name, query[option.query]]));
}

/** `/mcp` with no prompts or resources (tests of the tool surface); the server's own assembly is in cli/build-app.ts. */
export const mountMcp: RouteModule = mcpRoutes();
