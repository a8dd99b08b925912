import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_ENCRYPTION_KEY, createTestServices, type TestServices } from '../helpers/db.ts';
import { makeTenant, makeWebhook } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/https-receiver.ts';
import { getTestPki, testCaFile } from '../helpers/test-ca.ts';
import { startNode, type RunningProcess } from '../helpers/process.ts';
import { createSender } from '../../dispatcher/send.ts';
import { tick } from '../../dispatcher/tick.ts';
import { MAX_CONNECTIONS_PER_RECEIVER } from '../../dispatcher/transport.ts';
import { LOOPBACK_CIDRS } from '../helpers/dispatch.ts';
import { until } from '../helpers/until.ts';

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
    webhookId = await makeWebhook(t.services, { companyId, url: `https://127.0.0.1:${receiver.port}/hook`, name: 'drain' });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await receiver?.close();
    await t?.close();
  });

  const workerEnv = () => {
    const ca = testCaFile();
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
  const countStatus = async (status: string) => t.services.database.prisma.webhookDelivery.count({ where: { webhookId, status } });

  /** A worker process holding a batch of 20 new deliveries: all claimed, the first MAX_CONNECTIONS_PER_RECEIVER open at the receiver, the rest queued behind them. */
  const workerWithBatchInFlight = async (): Promise<RunningProcess> => {
    await seed(20);
    const worker = startNode('cli/worker.ts', workerEnv());
    workers.push(worker);
    await worker.waitFor(/delivery worker started/);
    await until(async () => receiver.requests.length === MAX_CONNECTIONS_PER_RECEIVER && (await countStatus('in_flight')) === 20, 'the batch in flight');
    return worker;
  };

  it('four workers drain 5,000 deliveries with every delivery received exactly once', async () => {
    receiver.setHandler(() => ({ status: 200 }));
    await seed(5000);
    for (let i = 0; i < 4; i++) {
      const worker = startNode('cli/worker.ts', workerEnv());
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

  it('a worker killed mid-batch leaves in_flight rows that the next tick recovers, logs as a lost attempt and delivers', async () => {
    receiver.requests.length = 0;
    receiver.setHandler(() => ({ hang: true }));
    const worker = await workerWithBatchInFlight();
    worker.child.kill('SIGKILL');
    await new Promise((resolve) => worker.child.once('exit', resolve));
    expect(await countStatus('in_flight')).toBe(20);

    receiver.setHandler(() => ({ status: 200 }));
    const sender = createSender({ urlPolicy: t.services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert] });
    const prisma = t.services.database.prisma;
    const stuck = await prisma.webhookDelivery.findMany({ where: { webhookId, status: 'in_flight' } });
    // The next tick, 21 s after the claim as the database sees it (no waiting: the claim's stamp
    // is moved back, bypassing the trigger that would restamp it).
    await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
      await tx.$executeRawUnsafe(
        `UPDATE webhook_deliveries SET updated_at = updated_at - interval '21 seconds' WHERE webhook_id = $1::uuid AND status = 'in_flight'`,
        webhookId,
      );
    });
    const summary = await tick(t.services, sender, 50);
    await sender.close();
    expect(summary).toMatchObject({ recovered: 20, picked: 20, delivered: 20 });
    expect(await countStatus('delivered')).toBe(5020);
    // The killed attempt is in the attempt log (from its claim until recovery), then the resend.
    const log = await prisma.webhookDeliveryAttempt.findMany({
      where: { deliveryId: { in: stuck.map((d) => d.id) } },
      orderBy: [{ deliveryId: 'asc' }, { attemptNumber: 'asc' }],
    });
    expect(log).toHaveLength(40);
    for (const delivery of stuck) {
      const mine = log.filter((a) => a.deliveryId === delivery.id);
      expect(mine.map((a) => [a.attemptNumber, a.outcome, a.errorClass])).toEqual([
        [1, 'failed', 'stuck_recovered'],
        [2, 'delivered', null],
      ]);
      expect(mine[0]!.startedAt.getTime()).toBe(delivery.updatedAt.getTime() - 21_000);
    }
    expect(await prisma.webhookDelivery.count({ where: { id: { in: stuck.map((d) => d.id) }, attempts: 2 } })).toBe(20);
  });

  it('a worker stopped with SIGTERM mid-batch finishes and records its sends before it exits: nothing left in flight', async () => {
    receiver.requests.length = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.setHandler(async () => {
      await released;
      return { status: 200 };
    });
    const deliveredBefore = await countStatus('delivered');
    const worker = await workerWithBatchInFlight();
    worker.child.kill('SIGTERM');
    await worker.waitFor(/worker stopping \(SIGTERM\)/); // the signal is handled while every send is still open
    release();
    const [code] = (await once(worker.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(await countStatus('in_flight')).toBe(0);
    expect(await countStatus('delivered')).toBe(deliveredBefore + 20);
    const shutdownLine = (worker.stdout() + worker.stderr()).split('\n').find((line) => line.includes('"event":"shutdown"'));
    expect(shutdownLine, worker.stdout() + worker.stderr()).toBeDefined();
    expect(JSON.parse(shutdownLine!)).toMatchObject({ signal: 'SIGTERM', delivered: 20 });
    receiver.setHandler(() => ({ status: 200 }));
  });
});
