import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeTenant, makeWebhook } from '../../helpers/factories.ts';
import { claimDeliveries } from '../../../domain/webhooks/claim.ts';
import { sqlState } from '../../../domain/db/errors.ts';

async function seedPending(t: TestServices, count: number): Promise<string> {
  const db = t.services.database.prisma;
  const tenant = await makeTenant(db);
  const hook = { id: await makeWebhook(t.services, { companyId: tenant.companyId, url: 'https://hooks.example.com/x', name: 'claim test' }) };
  await db.$executeRawUnsafe(
    `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, next_attempt_at)
     SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb,
            CASE WHEN g % 2 = 0 THEN 'pending' ELSE 'failed' END, now() - (g || ' milliseconds')::interval
       FROM generate_series(1, ${count}) g`,
    hook!.id,
    tenant.companyId,
  );
  return hook!.id;
}

engineSuite('claim_webhook_deliveries', {}, (t) => {
  it.each([0, -1, 1001, 5000])('rejects batch %i (outside 1..1000)', async (batch) => {
    const error = await claimDeliveries(t.services.database.prisma, batch, new Date()).catch((e: unknown) => e);
    expect(sqlState(error)).toBe('22023');
  });

  it('takes pending and failed rows in next_attempt_at order, never in_flight, terminal, future or orphaned ones', async () => {
    const db = t.services.database.prisma;
    const hook = await seedPending(t, 10);
    const tenantCompany = (await db.webhook.findUniqueOrThrow({ where: { id: hook } })).companyId;
    await db.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, next_attempt_at, dead_reason)
       VALUES ($1::uuid, $2::uuid, 'company.updated', '{}', 'in_flight', now() - interval '1 hour', NULL),
              ($1::uuid, $2::uuid, 'company.updated', '{}', 'delivered', now() - interval '1 hour', NULL),
              ($1::uuid, $2::uuid, 'company.updated', '{}', 'dead', now() - interval '1 hour', 'http_410'),
              ($1::uuid, $2::uuid, 'company.updated', '{}', 'pending', now() + interval '1 hour', NULL),
              (NULL, $2::uuid, 'company.updated', '{}', 'pending', now() - interval '1 hour', NULL)`,
      hook,
      tenantCompany,
    );
    const claimed = await claimDeliveries(db, 1000, new Date());
    expect(claimed).toHaveLength(10);
    const due = await db.webhookDelivery.findMany({ where: { id: { in: claimed.map((c) => c.delivery_id) } } });
    expect(due.every((d) => d.status === 'in_flight')).toBe(true);
    const times = claimed.map((c) => due.find((d) => d.id === c.delivery_id)!.nextAttemptAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(await claimDeliveries(db, 1000, new Date())).toHaveLength(0);
    // The future row becomes claimable once its time comes.
    expect(await claimDeliveries(db, 1000, new Date(Date.now() + 2 * 3_600_000))).toHaveLength(1);
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('overlapping claims on PostgreSQL', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());

  it('never hand the same row to two claimers', async () => {
    const total = 3000;
    await seedPending(t, total);
    const db = t.services.database.prisma;
    const seen = new Map<string, number>();
    // Eight claimers at once, round after round, until nothing is left.
    for (let round = 0; round < 100; round++) {
      const batches = await Promise.all(Array.from({ length: 8 }, () => claimDeliveries(db, 37, new Date())));
      const claimed = batches.flat();
      for (const row of claimed) seen.set(row.delivery_id, (seen.get(row.delivery_id) ?? 0) + 1);
      if (claimed.length === 0) break;
    }
    expect(seen.size).toBe(total);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
  });
});
