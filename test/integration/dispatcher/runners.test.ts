import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../helpers/db.ts';
import { dispatchHarness, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver } from '../../helpers/https-receiver.ts';
import { testCaFile } from '../../helpers/test-ca.ts';
import { call } from '../../helpers/http.ts';
import { startWorker } from '../../../dispatcher/worker.ts';
import { CRON_PATH } from '../../../dispatcher/cron-route.ts';

const CRON_SECRET = 'cron-secret-for-tests-0123456789';

describe.each(DB_TARGETS)('delivery runners (%s)', (target) => {
  let h: DispatchHarness;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await dispatchHarness(target, { config: { CRON_SECRET, WEBHOOK_CA_FILE: testCaFile() } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('cron route: refuses a missing or wrong secret, runs one tick with the right one', async () => {
    await h.createWebhook(receiver.url('/cron'));
    await h.touchCompany();
    const missing = await call(h.app, 'POST', CRON_PATH);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHENTICATED');
    const wrong = await call(h.app, 'POST', CRON_PATH, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const ok = await call(h.app, 'POST', CRON_PATH, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ picked: 1, delivered: 1, failed: 0, dead: 0, recovered: 0 });
    const again = await call(h.app, 'POST', CRON_PATH, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(again.body.data.picked).toBe(0);
  });

  it('worker: wakes on the new-delivery notification (no polling) and delivers', async () => {
    const hook = await h.createWebhook(receiver.url('/worker'));
    let arrived!: (id: string) => void;
    const delivered = new Promise<string>((resolve) => (arrived = resolve));
    receiver.setHandler((request) => {
      if (request.url === '/worker') arrived(String(request.headers['x-service-delivery-id']));
      return { status: 200 };
    });
    // An hour between polls: only LISTEN/NOTIFY can wake the worker within this test.
    const worker = startWorker(h.t.services, { sender: h.sender, idlePollMs: 3_600_000, batchSize: 10 });
    try {
      await h.touchCompany();
      const deliveryId = await delivered;
      const row = await h.t.services.database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
      expect(row.webhookId).toBe(hook.id);
    } finally {
      await worker.stop();
    }
    expect(worker.totals.picked).toBeGreaterThanOrEqual(1);
  });
});

describe('cron route without a configured secret', () => {
  it('is not mounted at all (fail closed)', async () => {
    const h = await dispatchHarness('pglite');
    try {
      const response = await call(h.app, 'POST', CRON_PATH, { headers: { authorization: 'Bearer anything' } });
      expect(response.status).toBe(404);
      expect(h.t.logs.lines.some((line) => String(line.msg).includes('CRON_SECRET is not set'))).toBe(true);
    } finally {
      await h.close();
    }
  });
});
