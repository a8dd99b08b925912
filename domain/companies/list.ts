import type { OperationContext } from '../context.ts';
import { readRows, requireScope } from '../context.ts';
import { decodeCursor, encodeCursor, keysetTimestampSql, type PaginationMeta, type PaginationQuery, keysetPage } from '../kernel/pagination.ts';
import type { CompanyListItem } from './schemas.ts';

const LIST_NAME = 'companies';

interface Row {
  id: string;
  name: string;
  org_number: string;
  entity_type: string;
  livemode: boolean;
  created_at: Date;
  updated_at: Date;
  membership_id: string;
  role: CompanyListItem['membership']['role'];
  joined_at: string;
}

/**
 * One page of a user's companies: $1 user, $2 livemode, $3 the key's bound company or null, $4 and
 * $5 the keyset position after which the page starts (null, null for the first), $6 the row limit,
 * $7 an OAuth grant's companies or null.
 * Exported for the benchmarks' raw baselines, which read the same way.
 */
export const COMPANIES_PAGE = `
  SELECT c.id, c.name, c.org_number, c.entity_type, c.livemode, c.created_at, c.updated_at,
         m.id AS membership_id, m.role, ${keysetTimestampSql('m.joined_at')} AS joined_at
    FROM memberships m
    JOIN companies c ON c.id = m.company_id
   WHERE m.user_id = $1::uuid
     AND c.archived_at IS NULL
     AND c.livemode = $2
     AND ($3::uuid IS NULL OR c.id = $3::uuid)
     AND ($7::uuid[] IS NULL OR c.id = ANY($7::uuid[]))
     AND ($4::timestamptz IS NULL OR (m.joined_at, m.id) > ($4::timestamptz, $5::uuid))
   ORDER BY m.joined_at, m.id
   LIMIT $6`;

/**
 * Companies the caller belongs to, in (membership.joined_at, membership.id) order. The keyset
 * compares the exact microsecond timestamp the database printed, so equal or close joined_at
 * values are neither skipped nor repeated across pages.
 */
export async function listCompanies(ctx: OperationContext, query: PaginationQuery): Promise<{ companies: CompanyListItem[]; pagination: PaginationMeta }> {
  const actor = requireScope(ctx, 'companies:read');
  const after = decodeCursor(LIST_NAME, query.cursor);
  const rows = await readRows<Row>(ctx, COMPANIES_PAGE, [
    actor.userId,
    actor.mode === 'live',
    actor.companyId,
    after?.at ?? null,
    after?.id ?? null,
    query.limit + 1,
    actor.grant ? [...actor.grant.companyIds] : null,
  ]);
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeCursor(LIST_NAME, { at: last.joined_at, id: last.membership_id }));
  return {
    companies: page.map((row) => ({
      id: row.id,
      name: row.name,
      org_number: row.org_number,
      entity_type: row.entity_type,
      livemode: row.livemode,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      membership: { id: row.membership_id, role: row.role, joined_at: row.joined_at },
    })),
    pagination,
  };
}
