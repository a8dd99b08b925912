/**
 * The version of the MCP authorization specification this authorization server follows
 * (Model Context Protocol, "Authorization"); docs/oauth.md and the connection guide name it.
 */
export const MCP_AUTHORIZATION_SPEC_VERSION = '2025-11-25';

/**
 * Access tokens are short-lived (the MCP authorization spec's "Token theft"); refresh tokens rotate.
 * Here, not in provider.ts, so the connection guide can say it without loading the library.
 */
export const ACCESS_TOKEN_TTL_SECONDS = 10 * 60;

/** Where the authorization server answers (oidc-provider's routes, renamed under /oauth). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  jwks: '/oauth/jwks',
  revocation: '/oauth/revoke',
} as const;

/** The sign-in and consent page for one pending authorization (ours, not the library's). */
export const INTERACTION_PREFIX = '/oauth/interaction';
export const interactionPath = (uid: string): string => `${INTERACTION_PREFIX}/${uid}`;

/** RFC 8414 §3: the authorization server metadata of an issuer without a path. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
