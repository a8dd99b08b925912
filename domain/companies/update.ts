import type { OperationContext } from '../kernel/context.ts';
import { withTransaction } from '../kernel/context.ts';
import { companyNotFound } from './access.ts';
import { toCompany, type Company, type CompanyUpdateBody } from './schemas.ts';

/** Updates a company's editable fields. Tenancy was checked by the caller's pipeline. */
export async function updateCompany(ctx: OperationContext, companyId: string, body: CompanyUpdateBody): Promise<Company> {
  return withTransaction(ctx, async (tx) => {
    const before = await tx.db.company.findFirst({ where: { id: companyId, archivedAt: null } });
    if (!before) throw companyNotFound();
    const updated = await tx.db.company.update({
      where: { id: companyId },
      data: {
        ...(body.name !== undefined && { name: body.name }),
        ...(body.entity_type !== undefined && { entityType: body.entity_type }),
        updatedAt: tx.services.now(),
      },
    });
    return toCompany(updated);
  });
}
