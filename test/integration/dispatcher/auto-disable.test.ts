import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../helpers/db.ts';
import { dispatchHarness, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver } from '../../helpers/https-receiver.ts';
import { call } from '../../helpers/http.ts';
import { tick } from '../../../dispatcher/tick.ts';
import { MAX_ATTEMPTS } from '../../../dispatcher/backoff.ts';
import { AUTO_DISABLE_DEAD_IN_A_ROW } from '../../../domain/webhooks/health.ts';
import { EventEnvelope } from '../../../domain/events/types.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe.each(DB_TARGETS)('auto-disable on persistent failure (%s)', (target) => {
  let h: DispatchHarness;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await dispatchHarness(target);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });
  afterEach(async () => {
    await h.t.services.database.prisma.webhook.deleteMany({});
  });

  const db = () => h.t.services.database.prisma;
  const webhookRow = (id: string) => db().webhook.findUniqueOrThrow({ where: { id } });
  /** Runs ticks until nothing due is left (as the cron would over the next minutes). */
  async function drain(): Promise<void> {
    while ((await tick(h.t.services, h.sender)).picked > 0);
  }
  /** Every `stepHours` of simulated time from `fromMs` to `toMs`: a new event (while enabled), then the due deliveries. */
  async function simulate(id: string, fromMs: number, toMs: number, stepHours: number): Promise<void> {
    for (let at = fromMs; at <= toMs; at += stepHours * HOUR_MS) {
      h.clock.current = new Date(at);
      if ((await webhookRow(id)).disabledAt === null) await h.touchCompany();
      await drain();
    }
  }

  it('a receiver answering 500 for 5 days (injected clock) is disabled with consecutive_failures and exactly one webhook.disabled', async () => {
    const watcher = await h.createWebhook(receiver.url('/watcher'), 'webhook.disabled');
    const hook = await h.createWebhook(receiver.url('/down'));
    receiver.setHandler((request) => (request.url === '/down' ? { status: 500, body: 'down' } : { status: 200 }));
    const start = h.clock.now().getTime();

    // Four days and 18 hours of failures: still enabled, and the API shows why it is at risk.
    await simulate(hook.id, start, start + 4 * DAY_MS + 18 * HOUR_MS, 6);
    const atRisk = await call(h.app, 'GET', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hook.id}`, { key: h.tenant.key });
    expect(atRisk.body.data).toMatchObject({ active: true, failing_since: new Date(start).toISOString(), last_error: 'http_500' });

    // Past five days: the next failure disables it.
    await simulate(hook.id, start + 5 * DAY_MS, start + 6 * DAY_MS, 6);
    const row = await webhookRow(hook.id);
    expect(row).toMatchObject({ disabledReason: 'consecutive_failures', lastError: 'http_500' });
    expect(row.disabledAt!.getTime()).toBe(start + 5 * DAY_MS);
    // Fewer than 50 dead so far: the five days decided, not the dead count.
    expect(row.consecutiveDead).toBeLessThan(AUTO_DISABLE_DEAD_IN_A_ROW);

    const notices = await db().webhookDelivery.findMany({ where: { webhookId: watcher.id } });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ eventType: 'webhook.disabled', status: 'delivered' });
    const event = EventEnvelope.parse(notices[0]!.payload);
    expect(event).toMatchObject({
      type: 'webhook.disabled',
      data: {
        object: { id: hook.id, disabled_reason: 'consecutive_failures', last_error: 'http_500', disabled_at: new Date(start + 5 * DAY_MS).toISOString() },
      },
    });
    const stored = await db().event.findUniqueOrThrow({ where: { id: notices[0]!.eventId! } });
    expect(stored.payload).toEqual(notices[0]!.payload);
    expect(receiver.requests.filter((r) => r.url === '/watcher')).toHaveLength(1);
    // What was still queued for it ends without being sent (when due), and nothing is announced twice.
    const sentBefore = receiver.requests.filter((r) => r.url === '/down').length;
    await simulate(hook.id, start + 6 * DAY_MS, start + 9 * DAY_MS, 6);
    expect(receiver.requests.filter((r) => r.url === '/down')).toHaveLength(sentBefore);
    const left = await db().webhookDelivery.findMany({ where: { webhookId: hook.id, status: { in: ['pending', 'failed'] } } });
    expect(left).toHaveLength(0);
    expect(await db().event.count({ where: { type: 'webhook.disabled' } })).toBe(1);

    // Re-enabling re-checks the URL and starts from a clean record.
    const enabled = await call(h.app, 'PATCH', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hook.id}`, { key: h.tenant.key, body: { active: true } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ active: true, disabled_reason: null, failing_since: null, last_error: null });
    expect((await webhookRow(hook.id)).consecutiveDead).toBe(0);
  });

  it('one success resets the count', async () => {
    const hook = await h.createWebhook(receiver.url('/flaky'));
    let succeedOnce = false;
    receiver.setHandler(() => {
      if (succeedOnce) {
        succeedOnce = false;
        return { status: 200 };
      }
      return { status: 500 };
    });
    const start = h.clock.now().getTime();
    await simulate(hook.id, start, start + 4 * DAY_MS, 6);
    succeedOnce = true;
    await simulate(hook.id, start + 4 * DAY_MS + HOUR_MS, start + 4 * DAY_MS + HOUR_MS, 1);
    expect(succeedOnce).toBe(false); // the one success happened
    // Another 4.5 days of failures: 8.5 days in all, but never 5 without a success.
    await simulate(hook.id, start + 4 * DAY_MS + 2 * HOUR_MS, start + 8 * DAY_MS + 14 * HOUR_MS, 6);
    const row = await webhookRow(hook.id);
    expect(row.disabledAt).toBeNull();
    expect(row.failingSince!.getTime()).toBeGreaterThanOrEqual(start + 4 * DAY_MS + HOUR_MS);
    expect(row.lastError).toBe('http_500');
  });

  /** `count` deliveries on their last attempt, due now. */
  const seedLastAttempts = (webhookId: string, count: number) =>
    db().$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, attempts, next_attempt_at)
       SELECT $1::uuid, $2::uuid, 'company.updated', jsonb_build_object('id', gen_random_uuid()), 'failed', ${MAX_ATTEMPTS - 1}, $3::timestamptz
         FROM generate_series(1, ${count})`,
      webhookId,
      h.tenant.companyId,
      h.clock.now(),
    );

  it('50 terminal deliveries in a row ending dead disable it first; a delivered one in between resets the run', async () => {
    const watcher = await h.createWebhook(receiver.url('/watcher'), 'webhook.disabled');
    const hook = await h.createWebhook(receiver.url('/dying'));
    receiver.setHandler((request) => (request.url === '/dying' ? { status: 503 } : { status: 200 }));
    await seedLastAttempts(hook.id, AUTO_DISABLE_DEAD_IN_A_ROW - 1);
    expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 49, dead: 49 });
    expect(await webhookRow(hook.id)).toMatchObject({ disabledAt: null, consecutiveDead: 49 });

    receiver.setHandler(() => ({ status: 200 }));
    await seedLastAttempts(hook.id, 1);
    expect(await tick(h.t.services, h.sender)).toMatchObject({ delivered: 1 });
    expect(await webhookRow(hook.id)).toMatchObject({ disabledAt: null, consecutiveDead: 0, failingSince: null, lastError: null });

    receiver.setHandler((request) => (request.url === '/dying' ? { status: 503 } : { status: 200 }));
    await seedLastAttempts(hook.id, 49);
    await tick(h.t.services, h.sender);
    expect((await webhookRow(hook.id)).disabledAt).toBeNull();
    await seedLastAttempts(hook.id, 1);
    await tick(h.t.services, h.sender);
    expect(await webhookRow(hook.id)).toMatchObject({ disabledReason: 'consecutive_failures', consecutiveDead: 50, lastError: 'attempts_exhausted:http_503' });
    await drain();
    const notices = await db().webhookDelivery.findMany({ where: { webhookId: watcher.id } });
    expect(notices).toHaveLength(1);
    expect(notices[0]!.payload).toMatchObject({
      data: { object: { id: hook.id, disabled_reason: 'consecutive_failures', last_error: 'attempts_exhausted:http_503' } },
    });
  });

  it('rows dropped on our side (disabled webhook) say nothing about the endpoint', async () => {
    const hook = await h.createWebhook(receiver.url('/off'));
    await call(h.app, 'PATCH', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hook.id}`, { key: h.tenant.key, body: { active: false } });
    await seedLastAttempts(hook.id, 60);
    await drain();
    expect(await webhookRow(hook.id)).toMatchObject({ disabledReason: 'manually_disabled', consecutiveDead: 0, failingSince: null });
  });
});
