import type { OperationContext } from '../kernel/context.ts';
import { requireScope, withTransaction } from '../kernel/context.ts';
import { emitEvent, previousAttributes } from '../events/emit.ts';
import { companyNotFound } from './access.ts';
import { toCompany, type Company, type CompanyUpdateBody } from './schemas.ts';

/** Updates a company's editable fields and emits company.updated with what changed. */
export async function updateCompany(ctx: OperationContext, companyId: string, body: CompanyUpdateBody): Promise<Company> {
  requireScope(ctx, 'companies:write');
  return withTransaction(ctx, async (tx) => {
    const before = await tx.db.company.findFirst({ where: { id: companyId, archivedAt: null } });
    if (!before) throw companyNotFound();
    const updated = toCompany(
      await tx.db.company.update({
        where: { id: companyId },
        data: {
          ...(body.name !== undefined && { name: body.name }),
          ...(body.entity_type !== undefined && { entityType: body.entity_type }),
          updatedAt: tx.services.now(),
        },
      }),
    );
    const { updated_at: _before, ...old } = toCompany(before);
    const { updated_at: _after, ...now } = updated;
    const changed = previousAttributes(old, now);
    // A PATCH that changes nothing is not an event.
    if (changed) await emitEvent(tx, companyId, 'company.updated', updated, changed);
    return updated;
  });
}
