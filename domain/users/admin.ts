import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { BAS_STARTER_CHART } from '../ledger/starter-chart.ts';
import { defaultVatCode } from '../ledger/vat-codes.ts';
import { MembershipRole } from '../companies/schemas.ts';

/** Administrative verbs used by the CLI and the demo seed; the public API does not expose them. */

export const CreateUserInput = z.object({ email: z.email(), name: z.string().min(1).max(200) });
export const CreateCompanyInput = z.object({
  name: z.string().min(1).max(200),
  orgNumber: z.string().min(1).max(32),
  entityType: z.string().min(1).max(64).default('aktiebolag'),
  livemode: z.boolean().default(false),
});
export const CreateMembershipInput = z.object({
  userId: z.uuid(),
  companyId: z.uuid(),
  role: MembershipRole.default('owner'),
  joinedAt: z.date().optional(),
});

export async function createUser(db: Db, input: z.input<typeof CreateUserInput>): Promise<{ id: string }> {
  const data = CreateUserInput.parse(input);
  return db.user.create({ data, select: { id: true } });
}

/** A new company starts with the BAS starter chart, in the same statement (all or nothing). */
export async function createCompany(db: Db, input: z.input<typeof CreateCompanyInput>): Promise<{ id: string }> {
  const data = CreateCompanyInput.parse(input);
  return db.company.create({
    data: {
      ...data,
      accounts: {
        create: BAS_STARTER_CHART.map((account) => ({ number: account.number, name: account.name, vatCode: defaultVatCode(account.number) })),
      },
    },
    select: { id: true },
  });
}

export async function createMembership(db: Db, input: z.input<typeof CreateMembershipInput>): Promise<{ id: string }> {
  const data = CreateMembershipInput.parse(input);
  return db.membership.create({ data, select: { id: true } });
}
