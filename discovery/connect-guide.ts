import { ACCESS_TOKEN_TTL_SECONDS, AUTHORIZATION_SERVER_METADATA_PATH, MCP_AUTHORIZATION_SPEC_VERSION, OAUTH_ROUTES } from '../http/oauth/paths.ts';
import { resourceMetadataUrl, resourceUri } from '../http/oauth/resources.ts';

/**
 * How an agent connects, said once: llms.txt, the MCP skill (and so the skills indexes), the
 * OpenAPI description /docs renders and every capability page carry this text, built from the
 * same paths the authorization server is mounted at (docs/oauth.md explains each step).
 */
export interface ConnectionGuide {
  /** One paragraph: what a hosted agent does and what a local client may do instead. */
  summary: string;
  /** The steps of the OAuth flow, in order, with absolute URLs. */
  steps: readonly string[];
}

export function connectionGuide(base: string): ConnectionGuide {
  const mcp = resourceUri(base, 'mcp');
  const api = resourceUri(base, 'api');
  return {
    summary:
      `Hosted agents connect by OAuth 2.1, following the MCP authorization specification ${MCP_AUTHORIZATION_SPEC_VERSION}: ` +
      'discovery from a 401, dynamic client registration, the authorization code flow with PKCE; a person signs in with one of ' +
      'their API keys and picks the companies and scopes to grant. Local clients and scripts may send an API key as the bearer instead.',
    steps: [
      `Call \`${mcp}\` (or \`${api}\`) without a token: the 401's \`WWW-Authenticate\` names its protected resource metadata, \`${resourceMetadataUrl(base, 'mcp')}\` (RFC 9728), which names the authorization server.`,
      `Read the authorization server metadata at \`${base}${AUTHORIZATION_SERVER_METADATA_PATH}\` (RFC 8414).`,
      `Register the client with \`POST ${base}${OAUTH_ROUTES.registration}\` (RFC 7591; a public client uses \`token_endpoint_auth_method: none\`; redirect URIs match exactly, a loopback one on any port).`,
      `Send the person to \`${base}${OAUTH_ROUTES.authorization}\` with PKCE (\`code_challenge_method=S256\`) and \`resource=${mcp}\` (\`${api}\` for REST; RFC 8707): they sign in with an API key and consent, never to more than that key holds.`,
      `Exchange the code at \`POST ${base}${OAUTH_ROUTES.token}\` for an access token bound to that resource (${ACCESS_TOKEN_TTL_SECONDS / 60} minutes) and a refresh token that rotates on every use; a refresh token used twice revokes the grant.`,
      'Send `Authorization: Bearer <access token>`. The person lists and revokes grants with the operations `listOAuthGrants` and `revokeOAuthGrant`; a revoked grant stops at once.',
    ],
  };
}

/** The guide as Markdown: the summary, then the numbered steps. */
export function renderConnectionGuide(base: string): string {
  const guide = connectionGuide(base);
  return [guide.summary, '', ...guide.steps.map((step, i) => `${i + 1}. ${step}`)].join('\n');
}
