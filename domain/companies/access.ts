import type { OperationContext } from '../context.ts';
import { requireActor } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';

/** One message for every way of not reaching a company, so a denial never reveals existence. */
export const companyNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such company.', membershipDenial: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Tenancy: the key's owner must be a member of the company, the company must not be archived,
 * its mode must match the key's (test keys reach sandbox companies only), and a key bound to a
 * company reaches only that one, and an OAuth grant only the companies it was granted. Every failure is the same 404 as an unknown company.
 */
export async function assertCompanyAccess(ctx: OperationContext, companyId: string): Promise<void> {
  const actor = requireActor(ctx);
  if (!UUID.test(companyId)) throw companyNotFound();
  if (actor.companyId !== null && actor.companyId !== companyId) throw companyNotFound();
  if (actor.grant && !actor.grant.companyIds.includes(companyId)) throw companyNotFound();
  const membership = await ctx.db.membership.findFirst({
    where: {
      userId: actor.userId,
      companyId,
      company: { archivedAt: null, livemode: actor.mode === 'live' },
    },
    select: { id: true },
  });
  if (!membership) throw companyNotFound();
}
