import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { authenticateKey } from '../domain/apikeys/keys.ts';
import type { Principal } from '../domain/kernel/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { registry } from '../registry/index.ts';
import type { RouteModule } from '../registry/http/app-env.ts';
import { buildServer, chargeCaller, type HandlerExtra } from './build-server.ts';
import { connection, HTTP_MODES, resolveMode, type Mode } from './connection.ts';
import type { McpContentSources } from './content.ts';
import { logMcpDenial, type DenialFacts, type McpDenialReason } from './denial-log.ts';
import { SECURITY_HEADERS } from '../registry/http/security-headers.ts';
import { errorResponse } from '../registry/http/error-response.ts';
import { readBearer } from '../registry/http/bearer.ts';
import { loggedHeader } from '../registry/http/logged-header.ts';
import { MAX_BODY_BYTES } from '../registry/http/body-limit.ts';
import { hostPolicy } from './dns-rebinding.ts';
import { ToolIndex } from './tools.ts';
import { configuredToolsets, resolveSelection, type Selection } from './toolsets.ts';

export const MCP_PATH = '/mcp';

// The API's security headers, minus X-Robots-Tag; no-store because answers carry tenant data.
const HEADERS: Readonly<Record<string, string>> = { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' };

/** The key's principal rides in the SDK's authInfo, so handlers read the caller where the transport put it. */
const toAuthInfo = (token: string, principal: Principal): AuthInfo => ({
  token,
  clientId: principal.apiKeyId,
  scopes: principal.scopes,
  extra: { principal },
});
const principalOf = (extra: HandlerExtra): Principal | null =>
  (extra.authInfo?.extra?.principal as Principal | undefined) ?? null;

/**
 * `/mcp`, Streamable HTTP in stateless JSON mode on the API's own Hono server. Order: Host/Origin
 * (403) → method (405: no GET stream, no DELETE session when stateless) → bearer key (401, as
 * REST) → toolset selection (400) → one cheap Server + transport for this request.
 */
export interface McpRouteOptions {
  /** Prompts and resources (skills, event catalogue, OpenAPI), assembled by the entry point. */
  content?: McpContentSources;
}

export const mcpRoutes = (options: McpRouteOptions = {}): RouteModule => (app, services) => {
  const index = new ToolIndex(registry.operations); // compiles both variants now: a bad name fails start-up
  configuredToolsets(services.config); // likewise a bad MCP_TOOLSETS
  const policy = hostPolicy(services.config);

  app.all(MCP_PATH, async (c) => {
    for (const [name, value] of Object.entries(HEADERS)) c.header(name, value);
    const facts = (apiKeyId: string | null): DenialFacts => ({
      requestId: c.get('requestId'),
      address: c.env?.incoming?.socket?.remoteAddress,
      userAgent: loggedHeader(c.req.header('user-agent')),
      apiKeyId,
      transport: 'http',
    });
    const deny = (reason: McpDenialReason, error?: DomainError, apiKeyId: string | null = null): void =>
      logMcpDenial(services.logger, facts(apiKeyId), reason, error);

    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!policy.hostAllowed(host) || !policy.originAllowed(c.req.header('origin'))) {
      deny('host_or_origin');
      // A JSON-RPC error, as the SDK's own check answers: the caller is an MCP client, not a REST one.
      return c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Host or Origin header not allowed.' }, id: null }, 403);
    }
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST');
      return errorResponse(c, new DomainError('METHOD_NOT_ALLOWED', { message: 'This MCP endpoint is stateless: send JSON-RPC with POST; it offers no GET stream and no sessions to DELETE.' }));
    }

    const bearer = readBearer(c.req.header('authorization'));
    const token = bearer.kind === 'token' ? bearer.token : null;
    const principal = token ? await authenticateKey(services.database.prisma, token, services.config.RATE_LIMIT_PER_MINUTE) : null;
    if (!token || !principal) {
      const missing = bearer.kind === 'missing';
      deny(missing ? 'missing_token' : 'invalid_token');
      return errorResponse(c, new DomainError('UNAUTHENTICATED', { message: missing ? 'Missing bearer token.' : 'The API key is invalid or revoked.' }));
    }
    c.set('principal', principal);

    let selection: Selection;
    let mode: Mode;
    try {
      selection = resolveSelection(services.config, { toolsets: c.req.query('toolsets'), readOnly: c.req.query('read_only'), variant: c.req.query('variant') });
      mode = resolveMode(c.req.query('mode'), HTTP_MODES);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      deny('validation', error, principal.apiKeyId);
      return errorResponse(c, error);
    }

    const served = connection(index, { mode, selection, scopes: principal.scopes, content: options.content });
    const server = buildServer({
      ...served,
      charge: () => chargeCaller(services, principal, c.get('requestId')),
      caller: async (extra) => ({
        services,
        principal: principalOf(extra),
        requestId: c.get('requestId'),
        onDenial: (kind, error) => deny(kind, error, principal.apiKeyId),
      }),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    transport.onerror = (error) => services.logger.debug({ err: error, request_id: c.get('requestId') }, 'MCP transport rejected a request');
    await server.connect(transport);
    try {
      // JSON mode resolves once every response is written, so closing afterwards loses nothing.
      const response = await transport.handleRequest(c.req.raw, { authInfo: toAuthInfo(token, principal) });
      // Hono does not merge c.header() into a Response the handler builds elsewhere: add ours here.
      for (const [name, value] of Object.entries(HEADERS)) response.headers.set(name, value);
      response.headers.set('X-Request-Id', c.get('requestId'));
      return response;
    } finally {
      await server.close();
    }
  });
};

/** `/mcp` with no prompts or resources (tests of the tool surface); the server's own assembly is in cli/build-app.ts. */
export const mountMcp: RouteModule = mcpRoutes();
