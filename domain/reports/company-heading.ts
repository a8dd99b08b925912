import type { OperationContext } from '../context.ts';
import { companyNotFound } from '../companies/access.ts';

/** What a printed report or an export names the company by. */
export interface CompanyHeading {
  name: string;
  orgNumber: string;
}

export async function companyHeading(ctx: OperationContext, companyId: string): Promise<CompanyHeading> {
  const company = await ctx.db.company.findFirst({ where: { id: companyId }, select: { name: true, orgNumber: true } });
  if (!company) throw companyNotFound();
  return company;
}
