import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, DB_TARGETS, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeWebhook } from '../../helpers/factories.ts';
import { dispatchHarness, TestClock, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver } from '../../helpers/https-receiver.ts';
import { testCaFile } from '../../helpers/test-ca.ts';
import { call } from '../../helpers/http.ts';
import { Scrape } from '../../helpers/metrics.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { CRON_PATH } from '../../../dispatcher/cron-route.ts';
import { startWorker } from '../../../dispatcher/worker.ts';
import { startOperationRunner } from '../../../domain/operations/start.ts';
import { QUEUE_GAUGES_SQL, readQueueGauges } from '../../../domain/observability/queue-gauges.ts';
import { createMetrics, METRIC_NAMES, type Metrics } from '../../../ops/metrics.ts';

/**
 * The backlog gauges are read from the database at scrape time (one statement on partial
 * indexes); the outcome counters come from what the dispatcher and the operation runner already
 * know. Real databases, a real HTTPS receiver, the injected clock: no waiting on wall time.
 */

const CRON_SECRET = 'cron-secret-for-metrics-0123456789';
const SECOND = 1000;

describe.each(DB_TARGETS)('backlog gauges (%s)', (target) => {
  const clock = new TestClock();
  let t: TestServices;
  let metrics: Metrics;
  const scrape = async () => new Scrape(await metrics.text());
  const at = (offsetMs: number) => new Date(clock.current.getTime() + offsetMs).toISOString();

  beforeAll(async () => {
    t = await createTestServices(target, { now: clock.now });
    metrics = createMetrics(t.services);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function queue(name: string) {
    const db = t.services.database.prisma;
    const companyId = await makeCompany(db, { name });
    const hook = { id: await makeWebhook(t.services, { companyId, url: 'https://hooks.example.com/x', name: 'metrics' }) };
    /** `count` deliveries of this webhook in `status`, due at `nextAttemptAt` (an ISO instant). */
    const add = (count: number, status: string, nextAttemptAt: string, webhook: string | null = hook!.id) =>
      db.$executeRawUnsafe(
        `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, next_attempt_at, dead_reason)
         SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb, $3, $4::timestamptz, CASE WHEN $3 = 'dead' THEN 'test' END
           FROM generate_series(1, ${count}) g`,
        webhook,
        companyId,
        status,
        nextAttemptAt,
      );
    const operation = (status: string) =>
      db.$executeRawUnsafe(
        `INSERT INTO operations (company_id, kind, status, lease_holder, lease_expires_at, finished_at)
         VALUES ($1::uuid, 'recover_webhook_deliveries', $2,
                 CASE WHEN $2 = 'running' THEN 'elsewhere' END, CASE WHEN $2 = 'running' THEN now() + interval '1 minute' END,
                 CASE WHEN $2 IN ('succeeded', 'failed', 'cancelled') THEN now() END)`,
        companyId,
        status,
      );
    return { companyId, add, operation };
  }

  it("counts due and in-flight deliveries, the oldest due one's wait and queued and running operations, never history", async () => {
    const a = await queue('Queue A');
    const b = await queue('Queue B');
    await a.add(1, 'pending', at(-90 * SECOND)); // the oldest due: the claim lag
    await a.add(2, 'pending', at(-30 * SECOND));
    await a.add(1, 'failed', at(-45 * SECOND)); // a retry now due counts too
    await a.add(2, 'pending', at(3600 * SECOND)); // scheduled, not due yet
    await a.add(2, 'in_flight', at(-120 * SECOND)); // claimed: in flight, not due
    await a.add(5, 'delivered', at(-600 * SECOND)); // history
    await a.add(1, 'dead', at(-600 * SECOND));
    await a.add(1, 'pending', at(-900 * SECOND), null); // its webhook is gone: never claimed, not due
    await b.add(1, 'pending', at(-10 * SECOND));
    await a.operation('queued');
    await a.operation('running');
    await b.operation('succeeded');
    await b.operation('cancelled');

    const scraped = await scrape();
    expect(scraped.value(METRIC_NAMES.webhookQueueDepth, { state: 'due' })).toBe(5);
    expect(scraped.value(METRIC_NAMES.webhookQueueDepth, { state: 'in_flight' })).toBe(2);
    expect(scraped.value(METRIC_NAMES.webhookClaimLag)).toBe(90);
    expect(scraped.value(METRIC_NAMES.operations, { status: 'queued' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.operations, { status: 'running' })).toBe(1);
    expect(scraped.series(METRIC_NAMES.operations)).toHaveLength(2);

    // An hour later the scheduled ones are due as well, and the oldest has waited an hour longer.
    clock.advance(3600 * SECOND + 1 * SECOND);
    const later = await scrape();
    expect(later.value(METRIC_NAMES.webhookQueueDepth, { state: 'due' })).toBe(7);
    expect(later.value(METRIC_NAMES.webhookClaimLag)).toBe(3691);

    // The count stops at its cap (DUE_COUNT_CAP in production).
    expect((await readQueueGauges(t.services, 3)).due).toBe(3);
    expect((await readQueueGauges(t.services, 100)).due).toBe(7);
  });

  it('reads the backlog on partial indexes only: no sequential scan of deliveries or operations, however long the history', async () => {
    const db = t.services.database.prisma;
    const history = await queue('History');
    await history.add(20_000, 'delivered', at(-86_400 * SECOND));
    await db.$executeRawUnsafe(
      `INSERT INTO operations (company_id, kind, status, finished_at)
       SELECT $1::uuid, 'recover_webhook_deliveries', 'succeeded', now() FROM generate_series(1, 5000)`,
      history.companyId,
    );
    await db.$executeRawUnsafe('ANALYZE webhook_deliveries');
    await db.$executeRawUnsafe('ANALYZE operations');
    // As the app runs it: a prepared statement with its two parameters.
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`PREPARE queue_gauges_plan(timestamptz, bigint) AS ${QUEUE_GAUGES_SQL}`);
      try {
        const lines = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN EXECUTE queue_gauges_plan('${clock.current.toISOString()}', 100000)`);
        return lines.map((line) => line['QUERY PLAN']).join('\n');
      } finally {
        await tx.$executeRawUnsafe('DEALLOCATE queue_gauges_plan');
      }
    });
    expect(plan).not.toMatch(/Seq Scan on (webhook_deliveries|operations)/);
    for (const index of ['webhook_deliveries_claim', 'webhook_deliveries_stuck', 'operations_claimable', 'operations_leased']) expect(plan).toContain(index);
  });
});

describe('backlog gauges when the database cannot answer', () => {
  it('leaves them out of the scrape and logs why; the rest of the scrape still answers', async () => {
    const t = await createTestServices('pglite');
    const metrics = createMetrics(t.services);
    expect(new Scrape(await metrics.text()).value(METRIC_NAMES.webhookClaimLag)).toBe(0);
    await t.close();
    const scraped = new Scrape(await metrics.text());
    expect(scraped.series(METRIC_NAMES.webhookQueueDepth)).toEqual([]);
    expect(scraped.series(METRIC_NAMES.webhookClaimLag)).toEqual([]);
    expect(scraped.series(METRIC_NAMES.operations)).toEqual([]);
    expect(scraped.declares(METRIC_NAMES.webhookClaimLag)).toBe(true);
    expect(scraped.value(METRIC_NAMES.loopRunning, { loop: 'delivery' })).toBe(0);
    expect(scraped.series('process_cpu_user_seconds_total')).toHaveLength(1);
    expect(t.logs.lines.some((line) => line.msg === 'metrics: the backlog gauges could not be read')).toBe(true);
  });
});

describe.each(DB_TARGETS)('outcome counters and loops (%s)', (target) => {
  let h: DispatchHarness;
  let receiver: Receiver;
  let metrics: Metrics;
  let app: ReturnType<typeof buildApp>;
  const scrape = async () => new Scrape(await metrics.text());
  const deliveries = (scraped: Scrape, outcome: string) => scraped.value(METRIC_NAMES.webhookDeliveries, { outcome });

  beforeAll(async () => {
    const caFile = testCaFile(); // the cron route's sender trusts WEBHOOK_CA_FILE
    h = await dispatchHarness(target, { config: { CRON_SECRET, WEBHOOK_CA_FILE: caFile } });
    metrics = createMetrics(h.t.services);
    app = buildApp(h.t.services, { metrics });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  it('counts deliveries by outcome from the cron route and the delivery loop, stuck rows recovered included', async () => {
    const ok = await h.createWebhook(receiver.url('/ok'));
    await h.createWebhook(receiver.url('/flaky'));
    let flakyAnswers = 503;
    receiver.setHandler((request) => ({ status: request.url === '/flaky' ? flakyAnswers : 200 }));
    const fresh = await scrape();
    for (const outcome of ['delivered', 'failed', 'dead', 'recovered']) expect(deliveries(fresh, outcome)).toBe(0);

    await h.touchCompany(); // one delivery to each webhook, due now
    h.clock.advance(30 * SECOND);
    const waiting = await scrape();
    expect(waiting.value(METRIC_NAMES.webhookQueueDepth, { state: 'due' })).toBe(2);
    expect(waiting.value(METRIC_NAMES.webhookClaimLag)).toBe(30);

    const tick = await call(app, 'POST', CRON_PATH, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(tick.body.data).toEqual({ picked: 2, delivered: 1, failed: 1, dead: 0, recovered: 0 });
    const ticked = await scrape();
    expect([deliveries(ticked, 'delivered'), deliveries(ticked, 'failed'), deliveries(ticked, 'dead'), deliveries(ticked, 'recovered')]).toEqual([1, 1, 0, 0]);
    expect(ticked.value(METRIC_NAMES.httpRequests, { surface: 'rest', operation: 'cron', status: '200' })).toBe(1);
    expect(ticked.value(METRIC_NAMES.webhookQueueDepth, { state: 'due' })).toBe(0); // the failed one waits for its retry
    expect(ticked.value(METRIC_NAMES.webhookClaimLag)).toBe(0);

    // A row a dead worker left in flight (claimed a minute ago by the database's clock).
    await h.t.services.database.prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, next_attempt_at, updated_at)
       VALUES ($1::uuid, $2::uuid, 'company.updated', '{}'::jsonb, 'in_flight', $3::timestamptz, now() - interval '1 minute')`,
      ok.id,
      h.tenant.companyId,
      h.clock.current.toISOString(),
    );
    expect((await scrape()).value(METRIC_NAMES.webhookQueueDepth, { state: 'in_flight' })).toBe(1);

    flakyAnswers = 200;
    h.clock.advance(10 * 60 * SECOND); // past the first retry's backoff (1 min ± 10 %)
    expect((await scrape()).value(METRIC_NAMES.loopRunning, { loop: 'delivery' })).toBe(0);
    const worker = startWorker(h.t.services, { sender: h.sender, onOutcomes: metrics.onDeliveries, idlePollMs: 20 });
    try {
      // The loop recovers the stuck row, then sends it and the retry: three delivered in all.
      await expect.poll(async () => deliveries(await scrape(), 'delivered'), { timeout: 30_000, interval: 50 }).toBe(3);
      const drained = await scrape();
      expect(deliveries(drained, 'recovered')).toBe(1);
      expect(deliveries(drained, 'failed')).toBe(1);
      expect(deliveries(drained, 'dead')).toBe(0);
      expect(drained.value(METRIC_NAMES.loopRunning, { loop: 'delivery' })).toBe(1);
      expect(drained.value(METRIC_NAMES.webhookQueueDepth, { state: 'in_flight' })).toBe(0);
    } finally {
      await worker.stop();
    }
    expect((await scrape()).value(METRIC_NAMES.loopRunning, { loop: 'delivery' })).toBe(0);
  });

  it('counts operations the runner finished, by kind and status, and says whether the runner runs here', async () => {
    const hooks = await call(app, 'GET', `/api/v1/companies/${h.tenant.companyId}/webhooks`, { key: h.tenant.key });
    const hookId = hooks.body.data.webhooks[0].id as string;
    const queued = await call(app, 'POST', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hookId}/recover`, {
      key: h.tenant.key,
      body: { since: new Date(h.clock.current.getTime() - 86_400 * SECOND).toISOString() },
    });
    expect(queued.status, queued.text).toBe(202);
    const before = await scrape();
    expect(before.value(METRIC_NAMES.operations, { status: 'queued' })).toBe(1);
    expect(before.value(METRIC_NAMES.loopRunning, { loop: 'operations' })).toBe(0);
    expect(before.series(METRIC_NAMES.operationsFinished)).toEqual([]);

    const runner = startOperationRunner(h.t.services, { onFinished: metrics.onOperationFinished });
    try {
      expect((await scrape()).value(METRIC_NAMES.loopRunning, { loop: 'operations' })).toBe(1);
      const finished = { kind: 'recover_webhook_deliveries', status: 'succeeded' };
      await expect.poll(async () => (await scrape()).value(METRIC_NAMES.operationsFinished, finished), { timeout: 30_000, interval: 50 }).toBe(1);
      expect((await scrape()).value(METRIC_NAMES.operations, { status: 'queued' })).toBe(0);
    } finally {
      await runner.stop();
    }
    expect((await scrape()).value(METRIC_NAMES.loopRunning, { loop: 'operations' })).toBe(0);
  });
});
