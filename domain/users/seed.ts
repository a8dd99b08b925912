import type { Database } from '../db/client.ts';
import { SCOPES } from '../kernel/scopes.ts';
import { createApiKey } from '../apikeys/keys.ts';
import { createCompany, createMembership, createUser } from './admin.ts';
import { insertFiscalYear } from '../ledger/fiscal-years.ts';

export const DEMO_EMAIL = 'demo@example.test';

/**
 * First run of the embedded default: a demo user, a sandbox company and a test-mode key with
 * every scope. Returns the key (shown once), or null when the database already has users.
 */
export async function seedDemo(database: Pick<Database, 'prisma' | 'sql'>): Promise<{ key: string; userId: string; companyId: string } | null> {
  // Every start asks, through the bare driver: Prisma (its query compiler starts in about 0.3 s) only seeds.
  const [{ seeded } = { seeded: false }] = await database.sql.query<{ seeded: boolean }>('SELECT EXISTS (SELECT 1 FROM users) AS seeded', []);
  if (seeded) return null;
  const db = database.prisma;
  const user = await createUser(db, { email: DEMO_EMAIL, name: 'Demo User' });
  const company = await createCompany(db, { name: 'Demo Bokföring AB', orgNumber: '556677-8899', livemode: false });
  await createMembership(db, { userId: user.id, companyId: company.id, role: 'owner' });
  // The current calendar year, so the first journal entry can be committed straight away.
  const year = new Date().getUTCFullYear();
  await insertFiscalYear(db, company.id, `${year}-01-01`, `${year}-12-31`);
  const { key } = await createApiKey(db, { userId: user.id, name: 'demo', mode: 'test', scopes: [...SCOPES] });
  return { key, userId: user.id, companyId: company.id };
}
