import { z } from 'zod';
import { OAuthGrant, revokeGrant } from '../../../domain/oauth/grants.ts';
import { defineOperation } from '../../define-operation.ts';
import { GRANT_ID, grantExample } from './examples.ts';

export const revokeOAuthGrant = defineOperation({
  id: 'revokeOAuthGrant',
  group: 'platform',
  method: 'POST',
  path: '/oauth-grants/{id}/revoke',
  summary: 'Revoke an OAuth grant',
  description: 'Disconnects an agent: its access and refresh tokens stop working at once. Revoking twice changes nothing. Get the id from listOAuthGrants.',
  auth: { scope: 'companies:write' },
  risk: 'L2',
  idempotent: true,
  reversible: false,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['update'],
  auditTarget: 'oauth_grant',
  errors: ['NOT_FOUND'],
  input: { params: z.object({ id: z.uuid().describe('Grant id, from listOAuthGrants.') }) },
  output: OAuthGrant,
  status: 200,
  examples: { params: { id: GRANT_ID }, response: { ...grantExample, revoked_at: '2026-11-28T11:00:00.000Z' } },
  surfaces: ['api', 'cli'],
  handler: async (ctx, { params }) => ({ data: await revokeGrant(ctx, params.id) }),
});
