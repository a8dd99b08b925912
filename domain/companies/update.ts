import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { emitEvent, previousAttributes } from '../events/emit.ts';
import { companyNotFound } from './access.ts';
import { toCompany, type Company, type CompanyUpdateBody } from './schemas.ts';

interface UpdatedRow {
  id: string;
  name: string;
  orgNumber: string;
  entityType: string;
  livemode: boolean;
  createdAt: Date;
  updatedAt: Date;
  oldName: string;
  oldEntityType: string;
}

/**
 * Updates a company's editable fields and emits company.updated with what changed. One UPDATE
 * both writes and reports the values it replaced (read from the row it locked), so there is no
 * read before the write; no row means no such (unarchived) company.
 */
export async function updateCompany(ctx: OperationContext, companyId: string, body: CompanyUpdateBody): Promise<Company> {
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.$queryRaw<UpdatedRow[]>`
      UPDATE companies c
         SET name = COALESCE(${body.name ?? null}::text, c.name),
             entity_type = COALESCE(${body.entity_type ?? null}::text, c.entity_type),
             updated_at = ${tx.services.now()}
        FROM (SELECT id, name, entity_type FROM companies WHERE id = ${companyId}::uuid AND archived_at IS NULL FOR UPDATE) old
       WHERE c.id = old.id
      RETURNING c.id::text AS id, c.name, c.org_number AS "orgNumber", c.entity_type AS "entityType", c.livemode,
                c.created_at AS "createdAt", c.updated_at AS "updatedAt", old.name AS "oldName", old.entity_type AS "oldEntityType"`;
    if (!row) throw companyNotFound();
    const updated = toCompany(row);
    const { updated_at: _after, ...now } = updated;
    const old = { ...now, name: row.oldName, entity_type: row.oldEntityType };
    const changed = previousAttributes(old, now);
    // A PATCH that changes nothing is not an event.
    if (changed) await emitEvent(tx, companyId, 'company.updated', updated, changed);
    return updated;
  });
}
