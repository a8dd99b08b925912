import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeCompany, makeWebhook } from '../../helpers/factories.ts';
import { explainClaim } from '../../helpers/claim-plan.ts';
import { claimDeliveries, CRON_BATCH_SIZE } from '../../../domain/webhooks/claim.ts';

/** A company with one webhook; `due(count)` adds that many due deliveries (older first by `ageMs`). */
async function tenantQueue(t: TestServices, name: string) {
  const db = t.services.database.prisma;
  const companyId = await makeCompany(db, { name });
  const hook = { id: await makeWebhook(t.services, { companyId, url: 'https://hooks.example.com/x', name: 'fairness' }) };
  return {
    companyId,
    due: (count: number, ageMs = 0) =>
      db.$executeRawUnsafe(
        `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, next_attempt_at)
         SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb, now() - make_interval(secs => ($3::int + g) / 1000.0)
           FROM generate_series(1, ${count}) g`,
        hook!.id,
        companyId,
        ageMs,
      ),
  };
}

const countBy = (rows: { delivery_company_id: string }[], companyId: string) => rows.filter((r) => r.delivery_company_id === companyId).length;

engineSuite('fair claim across companies', {}, (t) => {
  const db = () => t.services.database.prisma;
  const reset = () => db().$executeRawUnsafe(`UPDATE webhook_deliveries SET status = 'delivered' WHERE status IN ('pending', 'failed', 'in_flight')`);

  it('serves a tenant with 10 due rows in the same claim as one with a large, older backlog', async () => {
    const a = await tenantQueue(t, 'Backlog AB');
    const b = await tenantQueue(t, 'Small AB');
    await a.due(500, 3_600_000); // an hour older than anything of B's
    await b.due(10);
    const claimed = await claimDeliveries(db(), CRON_BATCH_SIZE, new Date());
    expect(claimed).toHaveLength(50);
    expect(countBy(claimed, b.companyId)).toBe(10);
    expect(countBy(claimed, a.companyId)).toBe(40);
    // Within a company, oldest first.
    const times = await db().webhookDelivery.findMany({
      where: { id: { in: claimed.map((c) => c.delivery_id) }, companyId: a.companyId },
      orderBy: { nextAttemptAt: 'asc' },
    });
    const oldestOfA = await db().webhookDelivery.findMany({ where: { companyId: a.companyId }, orderBy: { nextAttemptAt: 'asc' }, take: 40 });
    expect(times.map((r) => r.id).sort()).toEqual(oldestOfA.map((r) => r.id).sort());
    await reset();
  });

  it('takes rows round-robin: every company its 1st row, then every company its 2nd, …', async () => {
    const small = await tenantQueue(t, 'Five AB');
    const middle = await tenantQueue(t, 'Thirty AB');
    const large = await tenantQueue(t, 'Hundred AB');
    await large.due(100, 7_200_000);
    await middle.due(30, 3_600_000);
    await small.due(5);
    const claimed = await claimDeliveries(db(), 50, new Date());
    expect(claimed).toHaveLength(50);
    // Turns 1-5 give 15 rows; then two companies share the remaining 35: 18 and 17, the extra
    // row going to the company whose queue is older.
    expect([countBy(claimed, small.companyId), countBy(claimed, middle.companyId), countBy(claimed, large.companyId)]).toEqual([5, 22, 23]);
    // The order is by turn: the first three rows are one of each company.
    expect(new Set(claimed.slice(0, 3).map((r) => r.delivery_company_id)).size).toBe(3);
    // One company alone gets the whole batch.
    await reset();
    await large.due(80);
    const alone = await claimDeliveries(db(), 50, new Date());
    expect(alone).toHaveLength(50);
    expect(countBy(alone, large.companyId)).toBe(50);
    await reset();
  });

  it('still claims nothing that is not due, in flight, terminal or orphaned, for any company', async () => {
    const a = await tenantQueue(t, 'Future AB');
    await a.due(5, -3_600_000); // due in an hour
    expect(await claimDeliveries(db(), 50, new Date())).toHaveLength(0);
    expect(await claimDeliveries(db(), 50, new Date(Date.now() + 2 * 3_600_000))).toHaveLength(5);
    await reset();
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('fair claim at scale on PostgreSQL', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());
  const db = () => t.services.database.prisma;

  it('with 100,000 due rows of company A and 10 of company B, the first claim of 50 includes all 10 of B, on the partial index', async () => {
    const a = await tenantQueue(t, 'Company A');
    const b = await tenantQueue(t, 'Company B');
    await a.due(100_000, 3_600_000);
    await b.due(10);
    await db().$executeRawUnsafe('VACUUM ANALYZE webhook_deliveries');
    const plan = await db().$transaction((tx) => explainClaim(tx, 50));
    expect(plan).toContain('webhook_deliveries_claim');
    expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
    const claimed = await claimDeliveries(db(), CRON_BATCH_SIZE, new Date());
    expect(claimed).toHaveLength(50);
    expect(countBy(claimed, b.companyId)).toBe(10);
  });

  it('overlapping claimers across companies never share a row and drain everything (SKIP LOCKED)', async () => {
    await db().$executeRawUnsafe(`UPDATE webhook_deliveries SET status = 'delivered' WHERE status IN ('pending', 'failed', 'in_flight')`);
    const queues = await Promise.all(['C1', 'C2', 'C3', 'C4', 'C5'].map((name) => tenantQueue(t, name)));
    let total = 0;
    for (const [i, queue] of queues.entries()) {
      const count = [1500, 700, 300, 40, 3][i]!;
      await queue.due(count, i * 1000);
      total += count;
    }
    const seen = new Map<string, number>();
    for (let round = 0; round < 200; round++) {
      const batches = await Promise.all(Array.from({ length: 8 }, () => claimDeliveries(db(), 37, new Date())));
      const claimed = batches.flat();
      for (const row of claimed) seen.set(row.delivery_id, (seen.get(row.delivery_id) ?? 0) + 1);
      if (claimed.length === 0) break;
    }
    expect(seen.size).toBe(total);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
  });
});
