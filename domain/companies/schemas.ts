import { z } from 'zod';

export const CompanyId = z.uuid().describe('Company id (uuid). Get it from the companies list; never guess.');

export const Company = z
  .object({
    id: z.uuid(),
    name: z.string(),
    org_number: z.string().describe('Organisation number.'),
    entity_type: z.string().describe('Legal form, e.g. aktiebolag.'),
    livemode: z.boolean().describe('false for sandbox companies (reachable with test keys only).'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .describe('A company.');
export type Company = z.infer<typeof Company>;

/** A member's role in a company (memberships.role's CHECK; test/integration/db/facts.test.ts compares them). */
export const MembershipRole = z.enum(['owner', 'admin', 'member']);

export const CompanyListItem = Company.extend({
  membership: z.object({
    id: z.uuid(),
    role: MembershipRole,
    joined_at: z.iso.datetime({ precision: 6 }).describe('When the caller joined; with membership.id, the list order.'),
  }),
});
export type CompanyListItem = z.infer<typeof CompanyListItem>;

export const CompanyUpdateBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional().describe('Display name.'),
    entity_type: z.string().trim().min(1).max(64).optional().describe('Legal form.'),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'Provide at least one field to update.' });
export type CompanyUpdateBody = z.infer<typeof CompanyUpdateBody>;

type CompanyRow = {
  id: string;
  name: string;
  orgNumber: string;
  entityType: string;
  livemode: boolean;
  createdAt: Date;
  updatedAt: Date;
};

export const toCompany = (row: CompanyRow): Company => ({
  id: row.id,
  name: row.name,
  org_number: row.orgNumber,
  entity_type: row.entityType,
  livemode: row.livemode,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
