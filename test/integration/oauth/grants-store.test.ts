import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit } from '../../../domain/apikeys/admit.ts';
import { authenticateKey } from '../../../domain/apikeys/keys.ts';
import type { OperationContext } from '../../../domain/context.ts';
import { createGrant, GrantListQuery, listGrants, revokeGrant, revokeGrantByProviderId } from '../../../domain/oauth/grants.ts';
import { OAuthStateStore } from '../../../domain/oauth/state-store.ts';
import { createMembership } from '../../../domain/users/admin.ts';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeKey, makeTenant, systemContext } from '../../helpers/factories.ts';

/** A fresh database and its migrations: about a minute on a loaded two-core machine. */
const START_TIMEOUT_MS = 300_000;
/**
 * The OAuth storage adapter (oidc-provider's interface, on our tables) and grants acting through
 * their credential records: admission reaches the granted companies only, revocation is at once.
 */
describe.each(DB_TARGETS)('OAuth state and grants (%s)', (target) => {
  let t: TestServices;
  let clock = new Date('2026-11-28T10:00:00Z');
  beforeAll(async () => {
    t = await createTestServices(target, { now: () => clock });
  }, START_TIMEOUT_MS);
  afterAll(async () => t?.close());

  const admitOn = (apiKeyId: string, companyId: string | null) =>
    admit(t.services.database.sql, { apiKeyId }, { companyId, now: clock, defaultRateLimit: 1000 });

  describe('the storage adapter', () => {
    it('stores, finds, consumes and expires as the adapter interface says', async () => {
      const codes = new OAuthStateStore(t.services.database.sql, 'AuthorizationCode', () => clock);
      await codes.upsert('c1', { grantId: 'g1', accountId: 'u' }, 60);
      expect(await codes.find('c1')).toEqual({ grantId: 'g1', accountId: 'u' });
      await codes.consume('c1');
      expect((await codes.find('c1'))?.consumed).toBe(Math.floor(clock.getTime() / 1000));
      clock = new Date(clock.getTime() + 61_000);
      expect(await codes.find('c1')).toBeUndefined();
    });

    it('finds sessions by uid, and revokeByGrantId removes every model of the grant but nothing else', async () => {
      const sessions = new OAuthStateStore(t.services.database.sql, 'Session', () => clock);
      await sessions.upsert('s1', { uid: 'uid-1', accountId: 'u' }, 600);
      expect(await sessions.findByUid('uid-1')).toEqual({ uid: 'uid-1', accountId: 'u' });
      const refresh = new OAuthStateStore(t.services.database.sql, 'RefreshToken', () => clock);
      const access = new OAuthStateStore(t.services.database.sql, 'AccessToken', () => clock);
      await refresh.upsert('r1', { grantId: 'g2' }, 600);
      await access.upsert('a1', { grantId: 'g2' }, 600);
      await refresh.upsert('r2', { grantId: 'g3' }, 600);
      await refresh.revokeByGrantId('g2');
      expect(await refresh.find('r1')).toBeUndefined();
      expect(await access.find('a1')).toBeUndefined();
      expect(await refresh.find('r2')).toEqual({ grantId: 'g3' });
    });
  });

  describe('grants', () => {
    let ctx: OperationContext;
    let tenant: Awaited<ReturnType<typeof makeTenant>>;
    let second: string;
    let other: string;
    beforeAll(async () => {
      const db = t.services.database.prisma;
      tenant = await makeTenant(db, ['companies:read', 'companies:write']);
      second = await makeCompany(db);
      other = await makeCompany(db);
      await createMembership(db, { userId: tenant.userId, companyId: second, role: 'owner' });
      const signer = await authenticateKey(db, tenant.key, 1000);
      ctx = { ...systemContext(t.services), actor: signer };
    });

    it('reaches the granted company only, though its user belongs to two', async () => {
      const grant = await createGrant(ctx, {
        providerGrantId: 'pg-1',
        clientId: 'c',
        clientName: 'Agent',
        scopes: ['companies:read'],
        companyIds: [tenant.companyId],
      });
      const inside = await admitOn(grant.apiKeyId, tenant.companyId);
      expect(inside?.company).toEqual({ id: tenant.companyId, access: true });
      expect(inside?.principal.grant).toEqual({ id: grant.id, companyIds: [tenant.companyId] });
      expect(inside?.principal.scopes).toEqual(['companies:read']);
      expect((await admitOn(grant.apiKeyId, second))?.company).toEqual({ id: second, access: false });
      // The signing-in key itself still reaches both.
      expect((await admitOn(tenant.apiKeyId, second))?.company).toEqual({ id: second, access: true });
    });

    it('never holds more than the signing-in key: a scope it lacks, or a company it cannot reach, is refused', async () => {
      await expect(
        createGrant(ctx, { providerGrantId: 'pg-2', clientId: 'c', clientName: 'Agent', scopes: ['payroll:read'], companyIds: [tenant.companyId] }),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
      await expect(
        createGrant(ctx, { providerGrantId: 'pg-3', clientId: 'c', clientName: 'Agent', scopes: ['companies:read'], companyIds: [other] }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const bound = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['companies:read'], companyId: tenant.companyId });
      const boundCtx = { ...ctx, actor: await authenticateKey(t.services.database.prisma, bound.key, 1000) };
      await expect(
        createGrant(boundCtx, { providerGrantId: 'pg-4', clientId: 'c', clientName: 'Agent', scopes: ['companies:read'], companyIds: [second] }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('revoking a grant ends its admission at once and writes audit entries, not events', async () => {
      const grant = await createGrant(ctx, {
        providerGrantId: 'pg-5',
        clientId: 'c',
        clientName: 'Agent',
        scopes: ['companies:read'],
        companyIds: [tenant.companyId],
      });
      expect(await admitOn(grant.apiKeyId, null)).not.toBeNull();
      const refresh = new OAuthStateStore(t.services.database.sql, 'RefreshToken', () => clock);
      await refresh.upsert('r-pg-5', { grantId: 'pg-5' }, 600);
      const listed = await revokeGrant(ctx, grant.id);
      expect(listed.revoked_at).not.toBeNull();
      expect(await refresh.find('r-pg-5')).toBeUndefined();
      expect(await admitOn(grant.apiKeyId, null)).toBeNull();
      const audit = await t.services.database.prisma.auditLog.findMany({ where: { targetId: grant.id }, orderBy: { occurredAt: 'asc' } });
      expect(audit.map((row) => row.action)).toEqual(['oauth_grant.created', 'oauth_grant.revoked']);
      expect(await t.services.database.prisma.event.count({ where: { type: { startsWith: 'oauth' } } })).toBe(0);
    });

    it('a provider-side revocation (refresh token reuse) revokes ours; a grant sees only itself in the list', async () => {
      const grant = await createGrant(ctx, {
        providerGrantId: 'pg-6',
        clientId: 'c',
        clientName: 'Agent',
        scopes: ['companies:read'],
        companyIds: [tenant.companyId],
      });
      const admission = await admitOn(grant.apiKeyId, null);
      const asGrant = { ...ctx, actor: admission!.principal };
      const all = GrantListQuery.parse({});
      expect((await listGrants(asGrant, all)).grants.map((g) => g.id)).toEqual([grant.id]);
      expect((await listGrants(ctx, all)).grants.length).toBeGreaterThan(1);
      await revokeGrantByProviderId(systemContext(t.services), 'pg-6', 'refresh_token_reuse');
      expect(await admitOn(grant.apiKeyId, null)).toBeNull();
      expect((await listGrants(ctx, GrantListQuery.parse({ revoked: 'true' }))).grants.map((g) => g.id)).toContain(grant.id);
      expect((await listGrants(ctx, GrantListQuery.parse({ revoked: 'false' }))).grants.map((g) => g.id)).not.toContain(grant.id);
    });

    it('lists the grants newest first a page at a time, each once', async () => {
      const everyOne = (await listGrants(ctx, GrantListQuery.parse({ limit: '200' }))).grants.map((g) => g.id);
      expect(everyOne.length).toBeGreaterThan(2);
      const walked: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page <= everyOne.length; page++) {
        const { grants, pagination } = await listGrants(ctx, GrantListQuery.parse({ limit: '1', ...(cursor && { cursor }) }));
        walked.push(...grants.map((g) => g.id));
        if (!pagination.has_more) break;
        cursor = pagination.next_cursor ?? undefined;
      }
      expect(walked).toEqual(everyOne);
      expect(() => GrantListQuery.parse({ page: '2' })).toThrow();
    });

    it('losing the membership takes the company out of the grant (composite foreign key)', async () => {
      const grant = await createGrant(ctx, { providerGrantId: 'pg-7', clientId: 'c', clientName: 'Agent', scopes: ['companies:read'], companyIds: [second] });
      await t.services.database.prisma.membership.deleteMany({ where: { userId: tenant.userId, companyId: second } });
      expect((await admitOn(grant.apiKeyId, null))?.principal.grant?.companyIds).toEqual([]);
    });
  });
});
