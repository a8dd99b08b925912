import type { Context } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Services } from '../../domain/context.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';
import type { AppEnv, RouteModule } from '../app-env.ts';
import { SECURITY_HEADERS } from '../security-headers.ts';
import { submitInteraction, showInteraction } from './consent.ts';
import { AUTHORIZATION_SERVER_METADATA_PATH, INTERACTION_PREFIX, OAUTH_ROUTES } from './paths.ts';
import { oauthServer } from './provider.ts';
import { PROTECTED_RESOURCES, RESOURCE_METADATA_PREFIX, resourceUri, type ProtectedResource } from './resources.ts';
import { REQUEST_ID_HEADER } from '../response-headers.ts';

/** Where to read how to connect (README's section; the served docs link it). */
const DOCS_PATH = '/docs';

/**
 * RFC 9728 §2: a protected resource's metadata. `resource` is the identifier the document was
 * fetched for (§3.3), the authorization server is this service itself.
 */
export function resourceMetadata(base: string, resource: ProtectedResource | null) {
  return {
    resource: resource === null ? base : resourceUri(base, resource),
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: resource === 'mcp' ? 'Accounting MCP server' : resource === 'api' ? 'Accounting REST API' : 'Accounting',
    resource_documentation: `${base}${DOCS_PATH}`,
  };
}

const PROVIDER_DISCOVERY_PATH = '/.well-known/openid-configuration';
const JSON_HEADERS = { ...SECURITY_HEADERS, 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' };

/** Hands a request to oidc-provider (a Koa app) on the Node request and response Hono runs on. */
async function toProvider(services: Services, c: Context<AppEnv>): Promise<Response> {
  const { incoming, outgoing } = c.env ?? {};
  if (!incoming || !outgoing) throw new Error('the authorization server needs the Node request');
  // oidc-provider 8 (the line supporting Node 20) serves its RFC 8414 metadata only under the
  // OpenID discovery path; the document is the same.
  if (c.req.path === AUTHORIZATION_SERVER_METADATA_PATH) incoming.url = PROVIDER_DISCOVERY_PATH;
  const { provider } = await oauthServer(services);
  // The API's headers first; the library adds its own (Cache-Control, Pragma) over them.
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) outgoing.setHeader(name, value);
  outgoing.setHeader(REQUEST_ID_HEADER, c.get('requestId'));
  await provider.callback()(incoming, outgoing);
  return RESPONSE_ALREADY_SENT;
}

/**
 * OAuth 2.1 for hosted agents (docs/oauth.md): protected resource metadata, the authorization
 * server (metadata, registration, authorize, token, revocation, keys) and the consent page.
 */
export const oauthRoutes: RouteModule = (app, services) => {
  const base = services.config.PUBLIC_BASE_URL;
  app.get(RESOURCE_METADATA_PREFIX, () => new Response(JSON.stringify(resourceMetadata(base, null)), { headers: JSON_HEADERS }));
  for (const resource of Object.keys(PROTECTED_RESOURCES) as ProtectedResource[]) {
    const body = JSON.stringify(resourceMetadata(base, resource));
    app.get(`${RESOURCE_METADATA_PREFIX}${PROTECTED_RESOURCES[resource]}`, () => new Response(body, { headers: JSON_HEADERS }));
  }

  const provide = (c: Context<AppEnv>) => toProvider(services, c);
  app.on(['GET', 'OPTIONS'], AUTHORIZATION_SERVER_METADATA_PATH, provide);
  app.on(['GET', 'POST'], OAUTH_ROUTES.authorization, provide);
  app.on(['GET', 'POST'], `${OAUTH_ROUTES.authorization}/:uid`, provide);
  app.on(['POST', 'OPTIONS'], OAUTH_ROUTES.token, provide);
  app.on(['POST', 'OPTIONS'], OAUTH_ROUTES.registration, provide);
  app.on(['GET', 'PUT', 'DELETE'], `${OAUTH_ROUTES.registration}/:clientId`, provide);
  app.on(['GET', 'OPTIONS'], OAUTH_ROUTES.jwks, provide);
  app.on(['POST', 'OPTIONS'], OAUTH_ROUTES.revocation, provide);

  app.get(`${INTERACTION_PREFIX}/:uid`, async (c) => {
    const server = await oauthServer(services);
    return showInteraction(server, server.secret, c);
  });
  app.post(`${INTERACTION_PREFIX}/:uid`, async (c) => {
    const server = await oauthServer(services);
    return submitInteraction(services, server, server.secret, c);
  });
};
