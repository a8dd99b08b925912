import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { companyNotFound } from './access.ts';
import { toCompany, type Company } from './schemas.ts';

/** One company the caller may reach (the pipeline has checked membership and mode). */
export async function getCompany(ctx: OperationContext, companyId: string): Promise<Company> {
  requireScope(ctx, 'companies:read');
  const row = await ctx.db.company.findFirst({ where: { id: companyId, archivedAt: null } });
  if (!row) throw companyNotFound();
  return toCompany(row);
}
