import type { OAuthGrant } from '../../../domain/oauth/grants.ts';

export const GRANT_ID = '7d1f0c1e-2b7a-4c55-9a43-0f5d3c9b8e21';

export const grantExample: OAuthGrant = {
  id: GRANT_ID,
  client_id: 'hY3kq9Xb2mRt',
  client_name: 'Hosted Agent',
  mode: 'test',
  scopes: ['companies:read'],
  company_ids: ['3f6f5b8e-2c1d-4a9b-8e7f-1a2b3c4d5e6f'],
  created_at: '2026-11-28T10:00:00.000Z',
  last_used_at: '2026-11-28T10:05:00.000Z',
  revoked_at: null,
};
