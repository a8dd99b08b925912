import type { Hono } from 'hono';
import type { Db } from '../../domain/db/client.ts';
import { createApiKey } from '../../domain/apikeys/keys.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';
import { createCompany, createMembership, createUser } from '../../domain/users/admin.ts';
import type { AppEnv } from '../../registry/http/app-env.ts';
import { books, OFFICE_SUPPLIES } from '../../test/helpers/ledger.ts';

// High enough that the benchmark never meets a 429: every request still counts in the window.
const BENCH_RATE_LIMIT = 1_000_000_000;

/** One user owning one sandbox company, and a test key with every scope. */
export async function seedBenchTenant(db: Db): Promise<{ key: string; companyId: string }> {
  const user = await createUser(db, { email: `bench-${Date.now()}@example.test`, name: 'Bench User' });
  const company = await createCompany(db, { name: 'Bench Bokföring AB', orgNumber: '556677-8899', livemode: false });
  await createMembership(db, { userId: user.id, companyId: company.id, role: 'owner' });
  const { key, id } = await createApiKey(db, {
    userId: user.id,
    name: 'bench',
    mode: 'test',
    scopes: [...SCOPES],
    rateLimitPerMinute: BENCH_RATE_LIMIT,
  });
  // The key's counter row exists from the start, as after its first request (the counted raw
  // baseline only updates it).
  await db.$executeRaw`INSERT INTO rate_limit_counters (api_key_id, window_start, count) VALUES (${id}::uuid, now(), 1)`;
  return { key, companyId: company.id };
}

/** The fiscal year every ledger fixture lies in: twelve open monthly periods. */
export const BENCH_YEAR = { start: '2026-01-01', days: 365 } as const;

/** Opens BENCH_YEAR through the API (fiscal year and periods as a client creates them). */
export async function seedFiscalYear(app: Hono<AppEnv>, key: string, companyId: string): Promise<void> {
  const year = await books(app, key, companyId).createYear(BENCH_YEAR.start);
  if (year.status !== 201) throw new Error(`fiscal year refused: ${year.text}`);
}

/** One committed entry of three lines (a draft, then its commit, through the API); returns its id. */
export async function seedCommittedEntry(app: Hono<AppEnv>, key: string, companyId: string): Promise<string> {
  const entry = (await books(app, key, companyId).book('2026-03-15', OFFICE_SUPPLIES)) as { id: string };
  return entry.id;
}
