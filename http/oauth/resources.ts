import { API_PREFIX } from '../../registry/api-prefix.ts';

/**
 * The protected resources an OAuth access token can be bound to (RFC 8707 resource indicators):
 * the MCP endpoint and the REST API, each its own audience, so a token minted for one is refused
 * by the other. Their metadata (RFC 9728) is served at the path-suffixed well-known URL.
 */
export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCES = { mcp: MCP_PATH, api: API_PREFIX } as const;
export type ProtectedResource = keyof typeof PROTECTED_RESOURCES;

/** RFC 9728 §3: the metadata of a resource with a path lives at /.well-known/oauth-protected-resource + path. */
export const RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** The resource identifier (the token audience) of one resource under PUBLIC_BASE_URL. */
export const resourceUri = (base: string, resource: ProtectedResource): string => `${base}${PROTECTED_RESOURCES[resource]}`;

/**
 * The audiences a resource accepts: its own identifier, and the service as a whole (the root
 * metadata document's resource, for clients that only read /.well-known/oauth-protected-resource).
 * A token bound to the other resource is refused.
 */
export const acceptedAudiences = (base: string, resource: ProtectedResource): readonly string[] => [resourceUri(base, resource), base];

export const resourceMetadataUrl = (base: string, resource: ProtectedResource): string => `${base}${RESOURCE_METADATA_PREFIX}${PROTECTED_RESOURCES[resource]}`;

/**
 * The 401 challenge of a protected resource (RFC 6750 §3, RFC 9728 §5.1): where its metadata
 * is, so an MCP client can discover the authorization server; `invalid_token` when a token was
 * sent and refused.
 */
export function bearerChallenge(base: string, resource: ProtectedResource, tokenSent: boolean): string {
  const error = tokenSent ? ', error="invalid_token"' : '';
  return `Bearer realm="api"${error}, resource_metadata="${resourceMetadataUrl(base, resource)}"`;
}
