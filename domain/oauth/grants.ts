import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { appendAudit } from '../audit/append.ts';
import type { OperationContext, Principal, Services } from '../context.ts';
import { requireActor, requireScope, withTransaction } from '../context.ts';
import { sha256Hex } from '../kernel/crypto.ts';
import { booksInstant } from '../kernel/books-dates.ts';
import { PaginationQuery, decodeKeysetCursor, encodeKeysetCursor, keysetPage, keysetTimestampSql, type PaginationMeta } from '../kernel/pagination.ts';
import { DomainError } from '../kernel/errors.ts';
import { Scope } from '../kernel/scopes.ts';
import { revokeProviderGrant } from './state-store.ts';

/**
 * OAuth grants: what a person consented to at /oauth/consent — a client, the companies, the
 * scopes. A grant acts through a credential record of its own in api_keys (scopes, mode, rate
 * limit, revocation), so every rule an API key obeys — scope checks, tenancy, test/live, rate
 * limits, idempotency — holds for it unchanged; admit_request adds the grant's companies.
 */

/** The credential record's visible prefix (it never has a plaintext key). */
export const GRANT_KEY_PREFIX = 'oauth_grant';

export const GrantInput = z.object({
  providerGrantId: z.string().min(1),
  clientId: z.string().min(1),
  clientName: z.string().min(1).max(200),
  scopes: z.array(Scope).min(1),
  companyIds: z.array(z.uuid()).min(1),
});
export type GrantInput = z.infer<typeof GrantInput>;

/** A grant as its owner sees it (listOAuthGrants). */
export const OAuthGrant = z.object({
  id: z.uuid().describe('Grant id; pass it to revokeOAuthGrant.'),
  client_id: z.string().describe('The OAuth client the grant was given to.'),
  client_name: z.string().describe('The name the client registered with.'),
  mode: z.enum(['test', 'live']).describe('test grants reach sandbox companies only; live grants live ones.'),
  scopes: z.array(Scope).describe('Scopes granted.'),
  company_ids: z.array(z.uuid()).describe('Companies granted.'),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable().describe('Last use, to the minute; null if never.'),
  revoked_at: z.iso.datetime().nullable(),
});
export type OAuthGrant = z.infer<typeof OAuthGrant>;

/**
 * Records a consent. The grant never holds more than the person's signing-in key: its scopes
 * and mode, and companies that key may act on (checked again here, not only on the page).
 */
export async function createGrant(ctx: OperationContext, raw: GrantInput): Promise<{ id: string; apiKeyId: string }> {
  const input = GrantInput.parse(raw);
  const signer = requireActor(ctx);
  const beyond = input.scopes.filter((scope) => !signer.scopes.includes(scope));
  if (beyond.length > 0) {
    throw new DomainError('INSUFFICIENT_SCOPE', {
      message: `Your key does not hold ${beyond.join(', ')}; a grant cannot exceed it.`,
      requiredScope: beyond[0],
    });
  }
  const reachable = new Set((await grantableCompanies(ctx, signer)).map((company) => company.id));
  if (input.companyIds.some((id) => !reachable.has(id))) throw new DomainError('NOT_FOUND', { message: 'No such company.', membershipDenial: true });
  return withTransaction(ctx, async (tx) => {
    const now = tx.services.now();
    // A digest of random bytes nobody keeps: the record can never be presented as an API key.
    const key = await tx.db.apiKey.create({
      data: {
        userId: signer.userId,
        name: `OAuth: ${input.clientName}`,
        mode: signer.mode,
        scopes: input.scopes,
        prefix: GRANT_KEY_PREFIX,
        keyHash: sha256Hex(randomBytes(32)),
        rateLimitPerMinute: signer.rateLimitPerMinute,
        createdAt: now,
      },
      select: { id: true },
    });
    const grant = await tx.db.oauthGrant.create({
      data: {
        userId: signer.userId,
        apiKeyId: key.id,
        signedInWithApiKeyId: signer.grant ? null : signer.apiKeyId,
        providerGrantId: input.providerGrantId,
        clientId: input.clientId,
        clientName: input.clientName,
        createdAt: now,
      },
      select: { id: true },
    });
    await tx.db.oauthGrantCompany.createMany({ data: input.companyIds.map((companyId) => ({ grantId: grant.id, userId: signer.userId, companyId })) });
    await appendAudit(tx, {
      action: 'oauth_grant.created',
      companyId: null,
      target: { type: 'oauth_grant', id: grant.id },
      details: { client_id: input.clientId, scopes: input.scopes, company_ids: input.companyIds, mode: signer.mode },
    });
    return { id: grant.id, apiKeyId: key.id };
  });
}

export interface GrantableCompany {
  id: string;
  name: string;
  livemode: boolean;
}

/** The companies a key may act on (membership, not archived, its mode, its bound company): what consent offers. */
export async function grantableCompanies(ctx: OperationContext, actor: Principal): Promise<GrantableCompany[]> {
  const rows = await ctx.db.membership.findMany({
    where: {
      userId: actor.userId,
      company: { archivedAt: null, livemode: actor.mode === 'live' },
      ...(actor.companyId !== null && { companyId: actor.companyId }),
      ...(actor.grant && { companyId: { in: [...actor.grant.companyIds] } }),
    },
    select: { company: { select: { id: true, name: true, livemode: true } } },
    orderBy: [{ joinedAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map((row) => row.company);
}

/** The grant a provider grant id belongs to, while it stands: what access tokens carry. */
export async function activeGrantByProviderId(services: Services, providerGrantId: string): Promise<{ id: string; apiKeyId: string } | null> {
  const [row] = await services.database.sql.query<{ id: string; api_key_id: string }>(
    'SELECT id, api_key_id FROM oauth_grants WHERE provider_grant_id = $1 AND revoked_at IS NULL',
    [providerGrantId],
  );
  return row ? { id: row.id, apiKeyId: row.api_key_id } : null;
}

export const GrantListQuery = z
  .strictObject({
    revoked: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional()
      .describe('true: only revoked grants; false: only live ones.'),
  })
  .extend(PaginationQuery.shape);
export type GrantListQuery = z.infer<typeof GrantListQuery>;

const LIST_NAME = 'oauth_grants';
const ListKey = z.object({ at: booksInstant({ precision: 6 }), id: z.uuid() });

/** The caller's grants, newest first, a page at a time. A grant's own token sees only its own grant. */
export async function listGrants(ctx: OperationContext, query: GrantListQuery): Promise<{ grants: OAuthGrant[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'companies:read');
  const actor = requireActor(ctx);
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = await ctx.db.$queryRawUnsafe<{ id: string; key: string }[]>(
    `SELECT id, ${keysetTimestampSql('created_at')} AS key FROM oauth_grants
      WHERE user_id = $1::uuid AND ($2::uuid IS NULL OR id = $2::uuid)
        AND ($3::boolean IS NULL OR (revoked_at IS NOT NULL) = $3::boolean)
        AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::uuid))
      ORDER BY created_at DESC, id DESC
      LIMIT $6`,
    actor.userId,
    actor.grant?.id ?? null,
    query.revoked ?? null,
    after?.at ?? null,
    after?.id ?? null,
    query.limit + 1,
  );
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { at: last.key, id: last.id }));
  return {
    grants: await grantsOf(
      ctx,
      page.map((row) => row.id),
    ),
    pagination,
  };
}

/** The caller's grants with these ids, newest first. */
async function grantsOf(ctx: OperationContext, ids: readonly string[]): Promise<OAuthGrant[]> {
  const actor = requireActor(ctx);
  if (ids.length === 0) return [];
  const rows = await ctx.db.oauthGrant.findMany({
    where: { userId: actor.userId, id: { in: [...ids] }, ...(actor.grant && { AND: [{ id: actor.grant.id }] }) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  if (rows.length === 0) return [];
  const keys = await ctx.db.apiKey.findMany({ where: { id: { in: rows.map((row) => row.apiKeyId) } } });
  const companies = await ctx.db.oauthGrantCompany.findMany({ where: { grantId: { in: rows.map((row) => row.id) } }, orderBy: { companyId: 'asc' } });
  return rows.map((row) => {
    const key = keys.find((candidate) => candidate.id === row.apiKeyId);
    return {
      id: row.id,
      client_id: row.clientId,
      client_name: row.clientName,
      mode: key?.mode === 'live' ? 'live' : 'test',
      scopes: (key?.scopes ?? []).filter((scope): scope is Scope => Scope.safeParse(scope).success),
      company_ids: companies.filter((company) => company.grantId === row.id).map((company) => company.companyId),
      created_at: row.createdAt.toISOString(),
      last_used_at: key?.lastUsedAt?.toISOString() ?? null,
      revoked_at: row.revokedAt?.toISOString() ?? null,
    };
  });
}

/**
 * Revokes one of the caller's grants: its credential record (every access token dies on its next
 * request, since admission reads the record) and the authorization server's refresh tokens, in
 * one transaction. An unknown or foreign id is NOT_FOUND; revoking twice changes nothing.
 */
export async function revokeGrant(ctx: OperationContext, grantId: string): Promise<OAuthGrant> {
  requireScope(ctx, 'companies:write');
  const actor = requireActor(ctx);
  await withTransaction(ctx, async (tx) => {
    const grant = await tx.db.oauthGrant.findFirst({ where: { id: grantId, userId: actor.userId, ...(actor.grant && { id: actor.grant.id }) } });
    if (!grant) throw new DomainError('NOT_FOUND', { message: 'No such grant.' });
    await revokeGrantRecord(tx, grant.id, 'revoked_by_user');
    await revokeProviderGrant(readerOf(tx), grant.providerGrantId);
  });
  const [listed] = await grantsOf(ctx, [grantId]);
  if (!listed) throw new DomainError('NOT_FOUND', { message: 'No such grant.' });
  return listed;
}

const readerOf = (tx: OperationContext) => tx.services.database.sqlFor(tx.db);

/** Marks a grant and its credential record revoked and writes the audit entry, once: a second call changes nothing. */
async function revokeGrantRecord(tx: OperationContext, grantId: string, reason: string): Promise<void> {
  const now = tx.services.now();
  const { count } = await tx.db.oauthGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: now } });
  if (count === 0) return;
  const grant = await tx.db.oauthGrant.findUniqueOrThrow({ where: { id: grantId }, select: { apiKeyId: true } });
  await tx.db.apiKey.updateMany({ where: { id: grant.apiKeyId, revokedAt: null }, data: { revokedAt: now } });
  await appendAudit(tx, { action: 'oauth_grant.revoked', companyId: null, target: { type: 'oauth_grant', id: grantId }, details: { reason } });
}

/**
 * The authorization server revoked its grant (a refresh token used twice, RFC 9700 §4.14.2; a
 * token revoked at /oauth/revoke): ours goes with it, so access tokens already issued stop
 * working too. Called without an actor, while the library revokes (so before it answers).
 */
export async function revokeGrantByProviderId(ctx: OperationContext, providerGrantId: string, reason: string): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const grant = await tx.db.oauthGrant.findUnique({ where: { providerGrantId }, select: { id: true } });
    if (grant) await revokeGrantRecord(tx, grant.id, reason);
  });
}
