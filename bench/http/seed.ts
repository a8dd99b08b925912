import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { Db } from '../../domain/db/client.ts';
import { createApiKey } from '../../domain/apikeys/keys.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';
import type { EventType } from '../../domain/events/types.ts';
import { createCompany, createMembership, createUser } from '../../domain/users/admin.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { call } from '../../test/helpers/http.ts';
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

/** `count` webhooks on `eventType` through the API (no receiver: nothing is ever delivered). */
export async function seedWebhooks(app: Hono<AppEnv>, key: string, companyId: string, eventType: EventType, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const created = await call(app, 'POST', `/api/v1/companies/${companyId}/webhooks`, {
      key,
      body: { event_type: eventType, webhook_url: `https://hooks.example.com/bench-${i}`, name: `bench ${i}` },
      headers: { 'idempotency-key': randomUUID() },
    });
    if (created.status !== 201) throw new Error(`webhook refused: ${created.text}`);
  }
}

/**
 * `count` drafts that pass every commit rule, set-based (the API would take minutes for 100,000):
 * OFFICE_SUPPLIES' three balanced lines on active starter-chart accounts, dated across BENCH_YEAR
 * (every period open). Returns their ids. Two statements: inserting the lines in the same
 * statement as their entries (a data-modifying CTE) grew quadratically here (10,000 drafts in
 * 3 s, the next 10,000 in 7 s; 159,000 in 258 s), the two stay linear (60,000 in 3 s).
 */
export async function seedDrafts(db: Db, companyId: string, count: number, label: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    INSERT INTO journal_entries (company_id, series, date, description)
    SELECT ${companyId}::uuid, 'A', ${BENCH_YEAR.start}::date + (g % ${BENCH_YEAR.days}), ${label} || ' ' || g
      FROM generate_series(1, ${count}::int) AS g
    RETURNING id`;
  const ids = rows.map((row) => row.id);
  const numbers = OFFICE_SUPPLIES.map((line) => line.account);
  const debits = OFFICE_SUPPLIES.map((line) => line.debit ?? 0);
  const credits = OFFICE_SUPPLIES.map((line) => line.credit ?? 0);
  const lines = await db.$executeRaw`
    INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit)
    SELECT ${companyId}::uuid, e.id, l.line_no, a.id, l.debit, l.credit
      FROM unnest(${ids}::uuid[]) AS e(id)
     CROSS JOIN unnest(${numbers}::text[], ${debits}::bigint[], ${credits}::bigint[]) WITH ORDINALITY AS l(number, debit, credit, line_no)
      JOIN accounts a ON a.company_id = ${companyId}::uuid AND a.number = l.number AND a.active`;
  if (lines !== numbers.length * count) throw new Error(`seeding drafts: ${lines} lines for ${count} drafts (an account missing from the chart?)`);
  return ids;
}
