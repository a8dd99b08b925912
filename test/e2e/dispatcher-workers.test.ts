import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_ENCRYPTION_KEY, createTestServices, type TestServices } from '../helpers/db.ts';
import { makeTenant } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/https-receiver.ts';
import { getTestPki } from '../helpers/test-ca.ts';
import { startEntry, type RunningProcess } from '../helpers/process.ts';
import { createSender } from '../../dispatcher/send.ts';
import { tick } from '../../dispatcher/tick.ts';
import { LOOPBACK_CIDRS } from '../helpers/dispatch.ts';

/** Polls a condition (not a timing assumption: it only bounds how long a broken run waits). */
async function until(condition: () => Promise<boolean>, what: string, limitMs = 120_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!POSTGRES_AVAILABLE)('dispatcher worker processes on PostgreSQL', () => {
  let t: TestServices;
  let receiver: Receiver;
  let webhookId: string;
  let companyId: string;
  const workers: RunningProcess[] = [];

  beforeAll(async () => {
    t = await createTestServices('postgres', { config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS } });
    receiver = await startReceiver();
    const tenant = await makeTenant(t.services.database.prisma);
    companyId = tenant.companyId;
    // An IP-literal URL: the worker processes resolve nothing (the test CA covers IP:127.0.0.1).
    const hook = await t.services.database.prisma.webhook.create({
      data: {
        companyId,
        eventType: 'company.updated',
        webhookUrl: `https://127.0.0.1:${receiver.port}/hook`,
        name: 'drain',
        secretEncrypted: t.services.secretBox.encrypt('a'.repeat(64)),
        apiVersionPinned: '2026-11-01',
      },
    });
    webhookId = hook.id;
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await receiver?.close();
    await t?.close();
  });

  const workerEnv = () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'acct-ca-')), 'ca.pem');
    writeFileSync(ca, getTestPki().caCert);
    return {
      DATABASE_URL: t.database!.url,
      DATABASE_ANON_URL: t.database!.anonUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS,
      WEBHOOK_CA_FILE: ca,
      WORKER_BATCH_SIZE: '50',
      LOG_LEVEL: 'info',
    };
  };

  const seed = (count: number) =>
    t.services.database.prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload)
       SELECT $1::uuid, $2::uuid, 'company.updated', jsonb_build_object('id', gen_random_uuid(), 'n', g)
         FROM generate_series(1, ${count}) g`,
      webhookId,
      companyId,
    );
  const countStatus = async (status: string) =>
    t.services.database.prisma.webhookDelivery.count({ where: { webhookId, status } });

  it('four workers drain 5,000 deliveries with every delivery received exactly once', async () => {
    receiver.setHandler(() => ({ status: 200 }));
    await seed(5000);
    for (let i = 0; i < 4; i++) {
      const worker = startEntry('cli/worker.ts', workerEnv());
      workers.push(worker);
      await worker.waitFor(/delivery worker started/);
    }
    await until(async () => (await countStatus('delivered')) === 5000, '5,000 delivered');
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    const received = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = String(request.headers['x-service-delivery-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    expect(received.size).toBe(5000);
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    const attempts = await t.services.database.prisma.webhookDeliveryAttempt.count();
    expect(attempts).toBe(5000);
  });

  it('a worker killed mid-batch leaves in_flight rows that the next tick recovers and delivers', async () => {
    receiver.requests.length = 0;
    receiver.setHandler(() => ({ hang: true }));
    await seed(20);
    const worker = startEntry('cli/worker.ts', workerEnv());
    workers.push(worker);
    await worker.waitFor(/delivery worker started/);
    await until(async () => receiver.requests.length === 20, 'the batch in flight');
    worker.child.kill('SIGKILL');
    await new Promise((resolve) => worker.child.once('exit', resolve));
    expect(await countStatus('in_flight')).toBe(20);

    receiver.setHandler(() => ({ status: 200 }));
    const sender = createSender({ urlPolicy: t.services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert] });
    const [{ now }] = (await t.services.database.prisma.$queryRawUnsafe<{ now: Date }[]>('SELECT now()')) as [{ now: Date }];
    // The next tick, 21 s after the claim as the database sees it (no waiting: an explicit clock).
    const later = { ...t.services, now: () => new Date(now.getTime() + 21_000) };
    const summary = await tick(later, sender, 50);
    await sender.close();
    expect(summary).toMatchObject({ recovered: 20, picked: 20, delivered: 20 });
    expect(await countStatus('delivered')).toBe(5020);
  });
});
