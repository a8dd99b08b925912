import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testCaFile } from '../../helpers/test-ca.ts';
import { DB_TARGETS, LogCapture, POSTGRES_AVAILABLE, testConfig } from '../../helpers/db.ts';
import { createServices } from '../../../domain/bootstrap.ts';
import { dispatchHarness, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver } from '../../helpers/https-receiver.ts';
import { call } from '../../helpers/http.ts';
import { KEY_WAIT_MS, tick } from '../../../dispatcher/tick.ts';
import { SecretBox } from '../../../domain/kernel/crypto.ts';
import { createMetrics, METRIC_NAMES } from '../../../ops/metrics.ts';
import { Scrape } from '../../helpers/metrics.ts';
import { MAX_ATTEMPTS } from '../../../dispatcher/backoff.ts';
import { claimDeliveries } from '../../../domain/webhooks/claim.ts';
import { recoverStuckDeliveries } from '../../../domain/webhooks/recover-stuck.ts';
import { CRON_PATH } from '../../../dispatcher/cron-route.ts';
import { startWorker } from '../../../dispatcher/worker.ts';
import { failureBackoffMs } from '../../../domain/background/listen.ts';
import type { Sender } from '../../../dispatcher/send.ts';
import { SECURITY_HEADERS } from '../../../http/security-headers.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';
import type { Services } from '../../../domain/context.ts';
import { until as pollUntil } from '../../helpers/until.ts';

/** Gives up before the suite's 60 s test timeout, so a broken run names what it waited for. */
const until = (condition: () => boolean | Promise<boolean>, what: string) => pollUntil(condition, what, 50_000);

const CRON_SECRET = 'cron-secret-for-no-stall-tests-0123';

/** Issue 9, "Delivery pipeline: no row can stall a batch". */
describe.each(DB_TARGETS)('a dispatcher no row can stall (%s)', (target) => {
  let h: DispatchHarness;
  let receiver: Receiver;

  beforeAll(async () => {
    const caFile = testCaFile(); // the cron route's sender trusts WEBHOOK_CA_FILE
    h = await dispatchHarness(target, { config: { CRON_SECRET, WEBHOOK_CA_FILE: caFile } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });
  afterEach(async () => {
    receiver.setHandler(() => ({ status: 200 }));
    await db().$executeRawUnsafe(`UPDATE webhook_deliveries SET status = 'delivered' WHERE status IN ('pending', 'failed', 'in_flight')`);
    await db().webhook.deleteMany({});
  });

  const db = () => h.t.services.database.prisma;
  const deliveriesOf = (webhookId: string) => db().webhookDelivery.findMany({ where: { webhookId } });
  /** Bypasses the database's triggers, as only a bug, an operator or a crash could. */
  const asOperator = (sql: string, ...values: unknown[]) =>
    db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
      await tx.$executeRawUnsafe(sql, ...values);
    });

  it('a row whose secret cannot be decrypted waits (never dead, no attempt counted), is counted by health and metrics, and goes out once the secret decrypts', async () => {
    const broken = await h.createWebhook(receiver.url('/broken'));
    const fine = [await h.createWebhook(receiver.url('/fine-1')), await h.createWebhook(receiver.url('/fine-2'))];
    // Sealed under another key: what a process started with the wrong ENCRYPTION_KEY meets.
    await db().webhook.update({ where: { id: broken.id }, data: { secretEncrypted: new SecretBox(randomBytes(32)).encrypt(broken.secret) } });
    await h.touchCompany();
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ picked: 3, delivered: 2, failed: 0, dead: 0 });
    const waiting = { status: 'failed', lastError: 'secret_undecryptable', deadReason: null, attempts: 0 };
    expect(await deliveriesOf(broken.id)).toMatchObject([{ ...waiting, nextAttemptAt: new Date(h.clock.now().getTime() + KEY_WAIT_MS) }]);
    for (const hook of fine) expect(await deliveriesOf(hook.id)).toMatchObject([{ status: 'delivered' }]);
    expect(receiver.requests.some((r) => r.url === '/broken')).toBe(false);
    expect(await db().webhookDelivery.count({ where: { status: 'in_flight' } })).toBe(0);
    const [held] = await deliveriesOf(broken.id);
    expect(await db().webhookDeliveryAttempt.count({ where: { deliveryId: held!.id } })).toBe(0);
    // Nothing was sent, so the webhook's delivery health says nothing either.
    expect(await db().webhook.findUniqueOrThrow({ where: { id: broken.id } })).toMatchObject({ failingSince: null, disabledAt: null });

    // The operator sees it: public health and the metrics gauge.
    const waitingCounts = async () => {
      const health = await call(h.app, 'GET', '/api/v1/health');
      expect(health.status, health.text).toBe(200);
      const scrape = new Scrape(await createMetrics(h.t.services).text());
      return { health: health.body.data.deliveries.waiting_for_key, metrics: scrape.value(METRIC_NAMES.webhookWaitingForKey) };
    };
    expect(await waitingCounts()).toEqual({ health: 1, metrics: 1 });

    // Waiting longer than the whole retry schedule never makes it dead.
    for (let round = 0; round <= MAX_ATTEMPTS; round++) {
      h.clock.advance(KEY_WAIT_MS);
      expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 1, delivered: 0, failed: 0, dead: 0 });
    }
    expect(await deliveriesOf(broken.id)).toMatchObject([waiting]);

    // The right key back (here: the secret sealed under the process's key): it is sent.
    await db().webhook.update({ where: { id: broken.id }, data: { secretEncrypted: h.t.services.secretBox.encrypt(broken.secret) } });
    h.clock.advance(KEY_WAIT_MS);
    expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 1, delivered: 1 });
    expect(await deliveriesOf(broken.id)).toMatchObject([{ status: 'delivered', attempts: 1 }]);
    expect(receiver.requests.filter((r) => r.url === '/broken')).toHaveLength(1);
    expect(await waitingCounts()).toEqual({ health: 0, metrics: 0 });
  });

  it('a row whose webhook vanished ends dead (webhook_missing); the rest of its batch is sent', async () => {
    const gone = await h.createWebhook(receiver.url('/gone'));
    const fine = await h.createWebhook(receiver.url('/fine'));
    await h.touchCompany();
    // The webhook row disappears without its foreign-key action (a restore gone wrong, say).
    await asOperator('DELETE FROM webhooks WHERE id = $1::uuid', gone.id);
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ picked: 2, delivered: 1, dead: 1 });
    expect(await deliveriesOf(gone.id)).toMatchObject([{ status: 'dead', deadReason: 'webhook_missing' }]);
    expect(await deliveriesOf(fine.id)).toMatchObject([{ status: 'delivered' }]);
  });

  it('any exception before the send ends that row dead with the cause named; the rest of its batch is sent', async () => {
    const hooks = [await h.createWebhook(receiver.url('/a')), await h.createWebhook(receiver.url('/explodes')), await h.createWebhook(receiver.url('/b'))];
    await h.touchCompany();
    const faulty: Sender = {
      send: (request) => (request.url.endsWith('/explodes') ? Promise.reject(new TypeError('boom')) : h.sender.send(request)),
      close: async () => {},
    };
    const summary = await tick(h.t.services, faulty);
    expect(summary).toMatchObject({ picked: 3, delivered: 2, dead: 1 });
    expect(await deliveriesOf(hooks[1]!.id)).toMatchObject([{ status: 'dead', deadReason: 'prepare_failed:unknown' }]);
    expect(h.t.logs.lines.some((line) => line.msg === 'delivery could not be prepared; marked dead' && line.reason === 'prepare_failed:unknown')).toBe(true);
  });

  it('records outcomes, attempts, disables and webhook.disabled events in one transaction: all or nothing', async () => {
    const watcher = await h.createWebhook(receiver.url('/watcher'), 'webhook.disabled');
    const gone = await h.createWebhook(receiver.url('/gone-410'));
    const ok = await h.createWebhook(receiver.url('/ok'));
    receiver.setHandler((request) => (request.url === '/gone-410' ? { status: 410 } : { status: 200 }));
    await h.touchCompany();
    // The event insert of the disable fails: nothing of the batch may be recorded.
    await db().$executeRawUnsafe(`
      CREATE FUNCTION test_refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'events are down'; END $$`);
    await db().$executeRawUnsafe('CREATE TRIGGER test_refuse_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION test_refuse_event()');
    try {
      await expect(tick(h.t.services, h.sender)).rejects.toThrow(/events are down/);
      for (const hook of [gone, ok]) expect(await deliveriesOf(hook.id)).toMatchObject([{ status: 'in_flight', attempts: 0 }]);
      expect(
        await db().webhookDeliveryAttempt.count({
          where: { deliveryId: { in: [...(await deliveriesOf(gone.id)), ...(await deliveriesOf(ok.id))].map((d) => d.id) } },
        }),
      ).toBe(0);
      expect((await db().webhook.findUniqueOrThrow({ where: { id: gone.id } })).disabledAt).toBeNull();
    } finally {
      await db().$executeRawUnsafe('DROP TRIGGER test_refuse_event ON events');
      await db().$executeRawUnsafe('DROP FUNCTION test_refuse_event()');
    }
    // Once events work again, the rows are recovered (the lost attempt counted) and it all commits together.
    await asOperator(`UPDATE webhook_deliveries SET updated_at = now() - interval '1 minute' WHERE status = 'in_flight'`);
    await tick(h.t.services, h.sender);
    expect(await deliveriesOf(gone.id)).toMatchObject([{ status: 'dead', deadReason: 'http_410', attempts: 2 }]);
    expect((await db().webhook.findUniqueOrThrow({ where: { id: gone.id } })).disabledReason).toBe('http_410');
    const [notice] = await deliveriesOf(watcher.id);
    expect(notice!.payload).toMatchObject({ type: 'webhook.disabled', data: { object: { id: gone.id, disabled_reason: 'http_410', last_error: 'http_410' } } });
    expect(await db().event.count({ where: { type: 'webhook.disabled' } })).toBe(1);
  });

  it("stuck recovery uses the database clock, not the dispatcher's", async () => {
    const hook = await h.createWebhook(receiver.url('/young'));
    await h.touchCompany();
    expect(await claimDeliveries(db(), 50, h.clock.now())).toHaveLength(1); // a worker took it just now
    h.clock.current = new Date(Date.now() + 3_600_000); // a dispatcher whose clock runs an hour ahead of the database's
    expect((await tick(h.t.services, h.sender)).recovered).toBe(0);
    expect(await deliveriesOf(hook.id)).toMatchObject([{ status: 'in_flight', attempts: 0 }]);
  });

  it('stuck recovery counts as an attempt: a row that keeps getting stuck reaches dead instead of looping', async () => {
    const hook = await h.createWebhook(receiver.url('/stuck'));
    await h.touchCompany();
    const [row] = await deliveriesOf(hook.id);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await claimDeliveries(db(), 50, h.clock.now()), `claim ${attempt}`).toHaveLength(1); // a worker takes it …
      await asOperator(`UPDATE webhook_deliveries SET updated_at = now() - interval '21 seconds' WHERE id = $1::uuid`, row!.id); // … and dies mid-send
      expect(await recoverStuckDeliveries(db())).toBe(1);
      const current = await db().webhookDelivery.findUniqueOrThrow({ where: { id: row!.id } });
      expect(current, `recovery ${attempt}`).toMatchObject({ attempts: attempt, status: attempt < MAX_ATTEMPTS ? 'failed' : 'dead' });
    }
    expect(await claimDeliveries(db(), 50, h.clock.now())).toHaveLength(0);
    const final = await db().webhookDelivery.findUniqueOrThrow({ where: { id: row!.id } });
    expect(final).toMatchObject({ status: 'dead', attempts: MAX_ATTEMPTS, deadReason: 'attempts_exhausted:stuck_recovered' });
    const log = await db().webhookDeliveryAttempt.findMany({ where: { deliveryId: row!.id }, orderBy: { attemptNumber: 'asc' } });
    expect(log.map((a) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(log.every((a) => a.errorClass === 'stuck_recovered')).toBe(true);
    expect(log.map((a) => a.outcome)).toEqual([...Array(7).fill('failed'), 'dead']);
  });

  it('cron route: the envelope with meta.api_version, Service-Version and the security headers; a tick picks at most 50', async () => {
    const hook = await h.createWebhook(receiver.url('/cron'));
    await db().$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, next_attempt_at)
       SELECT $1::uuid, $2::uuid, 'company.updated', jsonb_build_object('id', gen_random_uuid()), $3::timestamptz FROM generate_series(1, 60)`,
      hook.id,
      h.tenant.companyId,
      h.clock.now(),
    );
    const cron = () => call(h.app, 'POST', CRON_PATH, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    const first = await cron();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      data: { picked: 50, delivered: 50, failed: 0, dead: 0, recovered: 0 },
      meta: { request_id: first.headers.get('x-request-id'), api_version: API_VERSION },
    });
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(first.headers.get(name), name).toBe(value);
    expect(first.headers.get('service-version')).toBe(API_VERSION);
    expect(first.headers.get('x-robots-tag')).toBe('noai, noimageai');
    expect((await cron()).body.data.picked).toBe(10);
    const denied = await call(h.app, 'POST', CRON_PATH, { headers: { authorization: 'Bearer wrong' } });
    expect(denied.status).toBe(401);
    expect(denied.body.error).toMatchObject({ code: 'UNAUTHENTICATED', request_id: denied.headers.get('x-request-id') });
    expect(denied.headers.get('service-version')).toBe(API_VERSION);
    expect(denied.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe.each(DB_TARGETS)('a delivery loop that cannot start (%s)', (target) => {
  it('a refused LISTEN is logged and retried with backoff; the loop polls meanwhile and never rejects', async () => {
    const h = await dispatchHarness(target);
    const receiver = await startReceiver();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const refusing: Services = {
        ...h.t.services,
        // PGlite refuses the LISTEN itself; PostgreSQL's LISTEN connection goes to a port nobody serves.
        database: h.t.services.database.pglite
          ? {
              ...h.t.services.database,
              pglite: new Proxy(h.t.services.database.pglite, {
                get: (target, p) => (p === 'listen' ? () => Promise.reject(new Error('LISTEN refused')) : Reflect.get(target, p)),
              }),
            }
          : h.t.services.database,
        config: {
          ...h.t.services.config,
          ...(h.t.services.config.DATABASE_URL && {
            DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
            DATABASE_DIRECT_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
          }),
        },
      };
      const hook = await h.createWebhook(receiver.url('/polled'));
      const worker = startWorker(refusing, { sender: h.sender, idlePollMs: 20, batchSize: 10, lanes: 1 });
      try {
        await h.touchCompany();
        await until(
          async () => (await h.t.services.database.prisma.webhookDelivery.count({ where: { webhookId: hook.id, status: 'delivered' } })) === 1,
          'a polled delivery',
        );
        await until(() => h.t.logs.lines.some((line) => String(line.msg).startsWith('delivery LISTEN could not start')), 'the LISTEN failure log');
      } finally {
        await worker.stop();
      }
      const logged = h.t.logs.lines.find((line) => String(line.msg).startsWith('delivery LISTEN could not start'))!;
      expect(logged).toMatchObject({ level: 40, failures: 1, retry_in_ms: failureBackoffMs(1) });
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await receiver.close();
      await h.close();
    }
  });

  it('backs off 1 s, 2 s, 4 s … up to 30 s between failed attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(failureBackoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('a delivery loop whose database is down', () => {
  it('logs each failed batch, retries with backoff and keeps its promise from rejecting', async () => {
    const logs = new LogCapture();
    // A PostgreSQL server that is not there: nothing listens on port 1.
    const down = 'postgres://postgres@127.0.0.1:1/down';
    const services = await createServices(testConfig({ DATABASE_URL: down, DATABASE_ANON_URL: down }), {
      logger: logs.logger,
      migrate: false,
      checkKey: false,
    });
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const worker = startWorker(services, { idlePollMs: 20, lanes: 1 });
      await until(() => logs.lines.some((line) => line.msg === 'delivery batch failed; retrying with backoff'), 'a logged batch failure');
      await until(() => logs.lines.some((line) => String(line.msg).startsWith('delivery LISTEN could not start')), 'a logged LISTEN failure');
      await worker.stop();
      await worker.done;
      expect(logs.lines.find((line) => line.msg === 'delivery batch failed; retrying with backoff')).toMatchObject({
        level: 50,
        failures: 1,
        retry_in_ms: 1000,
      });
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await services.database.close().catch(() => {});
    }
  });
});
