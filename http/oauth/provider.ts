import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Services } from '../../domain/context.ts';
import { systemContextFor } from './system-context.ts';
import { KEY_CLAIM } from '../../domain/oauth/access-token.ts';
import { activeGrantByProviderId, revokeGrantByProviderId } from '../../domain/oauth/grants.ts';
import { ACCESS_TOKEN_ALG, loadSigningKeys } from '../../domain/oauth/signing-keys.ts';
import { OAuthStateStore } from '../../domain/oauth/state-store.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';
import { ACCESS_TOKEN_TTL_SECONDS, interactionPath, OAUTH_ROUTES } from './paths.ts';
import { PROTECTED_RESOURCES, resourceUri, type ProtectedResource } from './resources.ts';
import { renderErrorPage } from './pages.ts';

/**
 * Lifetimes (MCP authorization spec §"Token theft": short-lived access tokens, ACCESS_TOKEN_TTL_SECONDS;
 * OAuth 2.1 §4.3.1: public clients' refresh tokens rotate). An access token outlives a revoked
 * grant by nothing: admission reads the grant's credential record on every request.
 */
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
const AUTHORIZATION_CODE_TTL_SECONDS = 60; // RFC 6749 §4.1.2 recommends at most 10 minutes
const INTERACTION_TTL_SECONDS = 15 * 60;

/**
 * The authorization server: node `oidc-provider` (OpenID-certified, maintained), configured for
 * the MCP authorization specification (MCP_AUTHORIZATION_SPEC_VERSION) — authorization code with PKCE S256 only,
 * dynamic client registration (RFC 7591), resource indicators (RFC 8707) binding each token to
 * one of our resources, JWT access tokens (RFC 9068) signed with a key kept in our database,
 * rotating refresh tokens whose reuse revokes the whole grant, exact redirect URI matching.
 * Its state lives in our database (OAuthStateStore). Built once per services, on first use.
 */
export interface OAuthServer {
  provider: Provider;
  /** Keys the consent page's CSRF tokens and sign-in tickets; every process derives the same one. */
  secret: string;
}

const servers = new WeakMap<Services, Promise<OAuthServer>>();
export function oauthServer(services: Services): Promise<OAuthServer> {
  let found = servers.get(services);
  if (!found) {
    found = build(services);
    found.catch(() => servers.delete(services));
    servers.set(services, found);
  }
  return found;
}

async function build(services: Services): Promise<OAuthServer> {
  // Loaded on the first OAuth request, not at start-up: the library and its Koa stack are about a
  // quarter of the server's module loading (issue 30), and most servers never see an OAuth client.
  const { default: Provider, errors } = await import('oidc-provider');
  const base = services.config.PUBLIC_BASE_URL;
  const keys = await loadSigningKeys(services.database.sql, services.secretBox);
  const audiences = new Set([base, ...(Object.keys(PROTECTED_RESOURCES) as ProtectedResource[]).map((resource) => resourceUri(base, resource))]);
  const configuration: Configuration = {
    // The library keeps time with Date.now, so its rows expire by the wall clock too. When it
    // revokes a grant (a refresh token used twice: refresh_token.js; a token revoked at
    // /oauth/revoke), ours goes in the same request, so issued access tokens stop at once (RFC 9700 §4.14.2).
    adapter: (model: string) =>
      new OAuthStateStore(
        services.database.sql,
        model,
        () => new Date(),
        (grantId) => revokeGrantByProviderId(systemContextFor(services), grantId, 'authorization_server_revoked'),
      ),
    jwks: { keys: keys as Configuration['jwks'] extends { keys: infer K } | undefined ? K : never },
    // Signs the interaction and session cookies; derived from the token key every process shares.
    cookies: { keys: [cookieKey(keys)], long: { signed: true }, short: { signed: true } },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    routes: OAUTH_ROUTES,
    responseTypes: ['code'],
    // OAuth 2.1 §4.1.1: PKCE for every client; oidc-provider 9 accepts S256 and nothing else.
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // Our only key is ES256 (the library's default RS256 would need an RSA key we do not keep).
      id_token_signed_response_alg: ACCESS_TOKEN_ALG,
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    // Known to the server as a whole too, so a registration naming them (RFC 7591 `scope`, which
    // the MCP SDK sends) is valid; consent grants them as both (http/oauth/consent.ts).
    scopes: [...SCOPES],
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: REFRESH_TOKEN_TTL_SECONDS,
      Grant: REFRESH_TOKEN_TTL_SECONDS,
    },
    // Refresh tokens for every client allowed them (no OIDC offline_access: this is plain OAuth),
    // and they do not end with the browser session that consented.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    revokeGrantPolicy: () => true,
    extraTokenClaims: async (_ctx, token) => {
      const grantId = 'grantId' in token ? token.grantId : undefined;
      const grant = grantId ? await activeGrantByProviderId(services, grantId) : null;
      if (!grant) throw new errors.InvalidGrant('the grant was revoked');
      return { [KEY_CLAIM]: grant.apiKeyId, grant_id: grant.id };
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      // Not part of the MCP profile, so not offered (and not routed): PAR, logout, DPoP.
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets the MCP endpoint (the MCP spec requires clients to name one).
        defaultResource: () => resourceUri(base, 'mcp'),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (!audiences.has(resourceIndicator)) throw new errors.InvalidTarget();
          return {
            scope: SCOPES.join(' '),
            audience: resourceIndicator,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
          };
        },
      },
    },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      ctx.type = 'html';
      ctx.body = renderErrorPage(out);
    },
  };
  const provider = new Provider(base, configuration);
  // Behind a proxy that terminates TLS the request arrives as http; PUBLIC_BASE_URL says what the world sees.
  provider.proxy = base.startsWith('https:');
  provider.on('server_error', (_ctx: unknown, error: unknown) => services.logger.error({ err: error }, 'OAuth server error'));
  return {
    provider,
    secret: createHash('sha256')
      .update(`oauth-interactions:${cookieKey(keys)}`)
      .digest('base64url'),
  };
}

function cookieKey(keys: readonly JWK[]): string {
  const first = keys[0];
  if (!first?.d) throw new Error('OAuth signing key without its private part');
  return createHash('sha256').update(`oauth-cookies:${first.d}`).digest('base64url');
}
