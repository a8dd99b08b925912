import type { Db } from '../db/client.ts';

/**
 * Read-only listings for the administration CLI: who exists, which companies, who belongs where,
 * and which keys — never a key's secret or hash (only its visible prefix).
 */

export interface UserListing {
  id: string;
  email: string;
  name: string;
  created_at: string;
}

export interface CompanyListing {
  id: string;
  name: string;
  org_number: string;
  entity_type: string;
  livemode: boolean;
  archived_at: string | null;
}

export interface MembershipListing {
  id: string;
  user_id: string;
  user_email: string;
  company_id: string;
  company_name: string;
  role: string;
  joined_at: string;
}

export interface KeyListing {
  id: string;
  name: string;
  prefix: string;
  mode: string;
  scopes: string[];
  user_id: string;
  user_email: string;
  /** The one company a bound key acts on; null for a key that follows its owner's memberships. */
  company_id: string | null;
  /** When the key was last used, to the minute (recorded once per rate-limit window); null if never. */
  last_used_at: string | null;
  revoked_at: string | null;
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export async function listUsers(db: Db): Promise<UserListing[]> {
  const rows = await db.user.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map((row) => ({ id: row.id, email: row.email, name: row.name, created_at: row.createdAt.toISOString() }));
}

export async function listCompanies(db: Db): Promise<CompanyListing[]> {
  const rows = await db.company.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    org_number: row.orgNumber,
    entity_type: row.entityType,
    livemode: row.livemode,
    archived_at: iso(row.archivedAt),
  }));
}

export async function listMemberships(db: Db, filter: { userId?: string; companyId?: string } = {}): Promise<MembershipListing[]> {
  const rows = await db.membership.findMany({
    where: { ...(filter.userId && { userId: filter.userId }), ...(filter.companyId && { companyId: filter.companyId }) },
    include: { user: { select: { email: true } }, company: { select: { name: true } } },
    orderBy: [{ joinedAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map((row) => ({
    id: row.id,
    user_id: row.userId,
    user_email: row.user.email,
    company_id: row.companyId,
    company_name: row.company.name,
    role: row.role,
    joined_at: row.joinedAt.toISOString(),
  }));
}

export async function listApiKeys(db: Db, filter: { userId?: string } = {}): Promise<KeyListing[]> {
  const rows = await db.apiKey.findMany({
    where: filter.userId ? { userId: filter.userId } : {},
    // Never the hash: select exactly what a listing shows.
    select: {
      id: true,
      name: true,
      prefix: true,
      mode: true,
      scopes: true,
      userId: true,
      companyId: true,
      lastUsedAt: true,
      revokedAt: true,
      user: { select: { email: true } },
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    mode: row.mode,
    scopes: row.scopes,
    user_id: row.userId,
    user_email: row.user.email,
    company_id: row.companyId,
    last_used_at: iso(row.lastUsedAt),
    revoked_at: iso(row.revokedAt),
  }));
}
