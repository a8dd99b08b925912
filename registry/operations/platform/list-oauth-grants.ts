import { z } from 'zod';
import { GrantListQuery, listGrants, OAuthGrant } from '../../../domain/oauth/grants.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { grantExample } from './examples.ts';

export const listOAuthGrants = defineOperation({
  id: 'listOAuthGrants',
  group: 'platform',
  method: 'GET',
  path: '/oauth-grants',
  summary: 'List your OAuth grants',
  description:
    'Lists the agents you connected by OAuth (docs/oauth.md): client, companies, scopes, last use; newest first, optionally only revoked or live ones. Cursor-paginated. An OAuth token sees only its own grant.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: [],
  input: { query: GrantListQuery },
  output: z.object({ grants: z.array(OAuthGrant) }),
  status: 200,
  examples: { response: { grants: [grantExample] } },
  // Not an MCP tool: the MCP tool list is at its token budget, and connecting agents is a person's business.
  surfaces: ['api', 'cli'],
  handler: async (ctx, { query }) => {
    const { grants, pagination } = await listGrants(ctx, query);
    return { data: { grants }, pagination };
  },
});
