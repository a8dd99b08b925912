import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DB_TARGETS, testResolver } from '../../helpers/db.ts';
import { dispatchHarness, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver } from '../../helpers/https-receiver.ts';
import { call } from '../../helpers/http.ts';
import { tick, processBatch } from '../../../dispatcher/tick.ts';
import { verifySignature } from '../../../dispatcher/sign.ts';
import { JITTER_FRACTION, RETRY_DELAYS_MS, MAX_ATTEMPTS } from '../../../dispatcher/backoff.ts';
import { createSender } from '../../../dispatcher/send.ts';
import { REQUEST_TIMEOUT_MS } from '../../../domain/webhooks/retry-schedule.ts';
import { MAX_CONNECTIONS_PER_RECEIVER } from '../../../dispatcher/transport.ts';
import { getTestPki } from '../../helpers/test-ca.ts';
import type { Resolver } from '../../../domain/webhooks/url-safety.ts';

describe.each(DB_TARGETS)('delivery pipeline end to end (%s)', (target) => {
  let h: DispatchHarness;
  let receiver: Receiver;
  // DNS that tests can change between create and dispatch (rebinding).
  const dns = new Map<string, string[]>();
  const resolver: Resolver = async (host) => dns.get(host) ?? testResolver(host);

  beforeAll(async () => {
    h = await dispatchHarness(target, { resolver });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });
  afterEach(async () => {
    receiver.setHandler(() => ({ status: 200, body: 'ok' }));
    // Each test starts with no webhook, so earlier subscriptions never receive its events.
    await h.t.services.database.prisma.webhook.deleteMany({});
  });

  const db = () => h.t.services.database.prisma;
  const deliveriesOf = (webhookId: string) => db().webhookDelivery.findMany({ where: { webhookId }, orderBy: { createdAt: 'asc' } });

  it('delivers a signed event: 2xx → delivered, with headers, attempt log and a verifiable signature', async () => {
    const hook = await h.createWebhook(receiver.url('/hook'));
    await h.touchCompany();
    const seen = receiver.requests.length;
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ picked: 1, delivered: 1, failed: 0, dead: 0 });
    const request = receiver.requests[seen]!;
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, responseStatus: 200, responseBody: 'ok' });
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook');
    expect(request.headers.host).toBe(`localhost:${receiver.port}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-event-type']).toBe('company.updated');
    expect(request.headers['x-service-event-id']).toBe(delivery!.eventId);
    expect(request.headers['x-service-delivery-id']).toBe(delivery!.id);
    const payload = JSON.parse(request.body);
    expect(payload).toMatchObject({
      id: delivery!.eventId,
      type: 'company.updated',
      company_id: h.tenant.companyId,
      data: { previous_attributes: { name: expect.any(String) } },
    });
    const verified = verifySignature(request.headers['x-service-signature'] as string, request.body, hook.secret, {
      now: () => Math.floor(h.clock.now().getTime() / 1000),
    });
    expect(verified.ok).toBe(true);
    expect(
      verifySignature(request.headers['x-service-signature'] as string, `${request.body} `, hook.secret, {
        now: () => Math.floor(h.clock.now().getTime() / 1000),
      }).ok,
    ).toBe(false);
    const attempts = await db().webhookDeliveryAttempt.findMany({ where: { deliveryId: delivery!.id } });
    expect(attempts).toMatchObject([{ attemptNumber: 1, outcome: 'delivered', responseStatus: 200 }]);
    // Nothing left to claim.
    expect((await tick(h.t.services, h.sender)).picked).toBe(0);
  });

  it('retries non-2xx on the backoff schedule (±10 % jitter), then ends dead; every attempt is logged', async () => {
    receiver.setHandler(() => ({ status: 500, body: 'boom' }));
    const hook = await h.createWebhook(receiver.url('/flaky'));
    await h.touchCompany();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const before = h.clock.now().getTime();
      const summary = await tick(h.t.services, h.sender);
      expect(summary.picked, `attempt ${attempt}`).toBe(1);
      const [row] = await deliveriesOf(hook.id);
      expect(row!.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) {
        expect(row!.status).toBe('failed');
        expect(row!.lastError).toBe('http_500');
        delays.push(row!.nextAttemptAt.getTime() - before);
        // Not due yet: a tick one millisecond early claims nothing.
        h.clock.current = new Date(row!.nextAttemptAt.getTime() - 1);
        expect((await tick(h.t.services, h.sender)).picked).toBe(0);
        h.clock.advance(1);
      } else {
        expect(row).toMatchObject({ status: 'dead', deadReason: 'attempts_exhausted:http_500', responseStatus: 500, responseBody: 'boom' });
      }
    }
    expect(delays).toHaveLength(RETRY_DELAYS_MS.length);
    delays.forEach((delay, i) => {
      const step = RETRY_DELAYS_MS[i]!;
      expect(delay, `retry ${i + 1}`).toBeGreaterThanOrEqual(Math.round(step * (1 - JITTER_FRACTION)));
      expect(delay, `retry ${i + 1}`).toBeLessThanOrEqual(Math.round(step * (1 + JITTER_FRACTION)));
    });
    const [row] = await deliveriesOf(hook.id);
    const attempts = await db().webhookDeliveryAttempt.findMany({ where: { deliveryId: row!.id }, orderBy: { attemptNumber: 'asc' } });
    expect(attempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(attempts.map((a) => a.outcome)).toEqual([...Array(7).fill('failed'), 'dead']);
    // The deliveries list shows the whole attempt log on request.
    const listed = await call(h.app, 'GET', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hook.id}/deliveries?expand=attempts`, { key: h.tenant.key });
    expect(listed.status).toBe(200);
    const history = listed.body.data.deliveries[0].attempt_history;
    expect(history.map((a: { attempt_number: number }) => a.attempt_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(history[0]).toMatchObject({ outcome: 'failed', response_status: 500, response_body: 'boom' });
    const plain = await call(h.app, 'GET', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hook.id}/deliveries`, { key: h.tenant.key });
    expect(plain.body.data.deliveries[0]).not.toHaveProperty('attempt_history');
    // The audit trail is permanent.
    await expect(db().webhookDelivery.update({ where: { id: row!.id }, data: { attempts: 0 } })).rejects.toThrow();
  });

  it('a 429 with Retry-After: 3600 moves next_attempt_at out by an hour, not one minute; a 503 HTTP-date likewise', async () => {
    const hook = await h.createWebhook(receiver.url('/busy'));
    receiver.setHandler(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
    await h.touchCompany();
    const sentAt = h.clock.now().getTime();
    expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 1, failed: 1 });
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'failed', lastError: 'http_429' });
    expect(row!.nextAttemptAt.getTime() - sentAt).toBe(3_600_000);
    // Not due a minute later (the schedule's first step), only after the hour.
    h.clock.advance(2 * 60_000);
    expect((await tick(h.t.services, h.sender)).picked).toBe(0);
    const inTwoHours = new Date(Math.floor((sentAt + 2 * 3_600_000) / 1000) * 1000); // HTTP dates have whole seconds
    receiver.setHandler(() => ({ status: 503, headers: { 'retry-after': inTwoHours.toUTCString() } }));
    h.clock.current = new Date(sentAt + 3_600_000);
    expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 1, failed: 1 });
    const [again] = await deliveriesOf(hook.id);
    expect(again).toMatchObject({ attempts: 2, lastError: 'http_503' });
    expect(again!.nextAttemptAt.getTime()).toBe(inTwoHours.getTime());
  });

  it('410 Gone → dead, webhook disabled (http_410) and webhook.disabled emitted', async () => {
    const watcher = await h.createWebhook(receiver.url('/watcher'), 'webhook.disabled');
    const hook = await h.createWebhook(receiver.url('/gone'));
    receiver.setHandler((request) => (request.url === '/gone' ? { status: 410 } : { status: 200 }));
    await h.touchCompany();
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ picked: 1, dead: 1 });
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'dead', deadReason: 'http_410', responseStatus: 410 });
    const webhook = await db().webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(webhook.disabledReason).toBe('http_410');
    expect(webhook.disabledAt).not.toBeNull();
    const [notice] = await deliveriesOf(watcher.id);
    expect(notice!.payload).toMatchObject({ type: 'webhook.disabled', data: { object: { id: hook.id, disabled_reason: 'http_410' } } });
    // A disabled webhook receives nothing more: new events are not fanned out to it.
    await h.touchCompany();
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
    // The notice itself is delivered on the next tick.
    const next = await tick(h.t.services, h.sender);
    expect(next).toMatchObject({ delivered: 1 });
  });

  it('does not follow redirects: 302 is a failure and the target is never called', async () => {
    receiver.setHandler((request) => (request.url === '/moved' ? { status: 302, headers: { location: receiver.url('/target') } } : { status: 200 }));
    const hook = await h.createWebhook(receiver.url('/moved'));
    await h.touchCompany();
    await tick(h.t.services, h.sender);
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'failed', lastError: 'http_302', responseStatus: 302 });
    expect(receiver.requests.some((r) => r.url === '/target')).toBe(false);
  });

  it('keeps at most 4096 bytes of a large response body and captures response headers', async () => {
    receiver.setHandler(() => ({ status: 200, headers: { 'x-receiver': 'yes' }, body: 'x'.repeat(1024 * 1024) }));
    const hook = await h.createWebhook(receiver.url('/big'));
    await h.touchCompany();
    await tick(h.t.services, h.sender);
    const [row] = await deliveriesOf(hook.id);
    expect(row!.status).toBe('delivered');
    expect(Buffer.byteLength(row!.responseBody!)).toBe(4096);
    expect(row!.responseHeaders).toMatchObject({ 'x-receiver': 'yes' });
  });

  it('times out a hanging receiver as a retryable failure', async () => {
    const quick = createSender({ urlPolicy: h.t.services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert], now: h.clock.now, timeoutMs: 300 });
    receiver.setHandler(() => ({ hang: true }));
    const hook = await h.createWebhook(receiver.url('/slow'));
    await h.touchCompany();
    await tick(h.t.services, quick);
    await quick.close();
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'failed', lastError: 'timeout', attempts: 1 });
  });

  it('sends a whole batch concurrently: 50 requests to 50 receivers are all open at once', async () => {
    const quick = createSender({ urlPolicy: h.t.services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert], now: h.clock.now, timeoutMs: 8_000 }); // room for 50 TLS handshakes on a busy machine; a sequential sender would still time out
    let open = 0;
    let peak = 0;
    let release!: () => void;
    const allOpen = new Promise<void>((resolve) => (release = resolve));
    const handler = async () => {
      open++;
      peak = Math.max(peak, open);
      if (open === 50) release();
      await allOpen; // nobody is answered until all 50 are in flight at the same time
      open--;
      return { status: 200 };
    };
    const receivers = await Promise.all(Array.from({ length: 50 }, () => startReceiver({ handler })));
    try {
      for (const r of receivers) await h.createWebhook(r.url('/c'));
      await h.touchCompany();
      const summary = await processBatch(h.t.services, quick, 50);
      expect(summary).toMatchObject({ picked: 50, delivered: 50 });
      expect(peak).toBe(50);
    } finally {
      await quick.close();
      await Promise.all(receivers.map((r) => r.close()));
    }
  });

  it(`opens at most ${MAX_CONNECTIONS_PER_RECEIVER} connections to one receiver: 1,000 deliveries reuse them`, async () => {
    const sender = createSender({ urlPolicy: h.t.services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert], now: h.clock.now });
    const one = await startReceiver();
    let open = 0;
    let peak = 0;
    one.setHandler(async () => {
      peak = Math.max(peak, ++open);
      await new Promise((resolve) => setImmediate(resolve)); // overlap the requests of a batch
      open--;
      return { status: 200 };
    });
    try {
      for (let i = 0; i < 20; i++) await h.createWebhook(one.url(`/h${i}`));
      for (let i = 0; i < 50; i++) await h.touchCompany(); // 20 webhooks × 50 events
      let delivered = 0;
      while (delivered < 1000) {
        const summary = await processBatch(h.t.services, sender, 50);
        expect(summary.picked).toBeGreaterThan(0);
        delivered += summary.delivered;
      }
      expect(one.requests).toHaveLength(1000);
      expect(peak).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_RECEIVER);
      expect(one.tlsConnections).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_RECEIVER);
    } finally {
      await sender.close();
      await one.close();
    }
  });

  it('a tick with 50 hanging receivers ends at one timeout on an injected clock, not fifty', async () => {
    const receivers = await Promise.all(Array.from({ length: 50 }, () => startReceiver({ handler: () => ({ hang: true }) })));
    const sender = createSender({ urlPolicy: h.t.services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert], now: h.clock.now });
    try {
      for (const r of receivers) await h.createWebhook(r.url('/hang'));
      await h.touchCompany();
      // Only the timers are injected: sockets, TLS and the database run for real.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let done = false;
      const batch = processBatch(h.t.services, sender, 50).finally(() => (done = true));
      while (receivers.some((r) => r.requests.length === 0)) await new Promise((resolve) => setImmediate(resolve));
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const summary = await batch;
      expect(summary).toMatchObject({ picked: 50, failed: 50 });
    } finally {
      vi.useRealTimers();
      await sender.close();
      await Promise.all(receivers.map((r) => r.close()));
    }
  });

  it('DNS rebinding between create and dispatch → dead url_unsafe:private, webhook disabled, nothing sent', async () => {
    dns.set('rebind.example.com', ['93.184.216.34']);
    const hook = await h.createWebhook('https://rebind.example.com/hook');
    dns.set('rebind.example.com', ['10.0.0.7']);
    await h.touchCompany();
    const seen = receiver.requests.length;
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ picked: 1, dead: 1 });
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'dead', deadReason: 'url_unsafe:private', responseStatus: null });
    const webhook = await db().webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(webhook.disabledReason).toBe('url_unsafe:private');
    expect(receiver.requests.length).toBe(seen);
  });

  it("re-checks tenancy: a delivery whose company differs from its webhook's ends dead, nothing sent", async () => {
    const hook = await h.createWebhook(receiver.url('/tenant'));
    await h.touchCompany();
    const other = await db().company.create({ data: { name: 'Other AB', orgNumber: '556000-1111', entityType: 'aktiebolag' } });
    // The database refuses this state; bypass its triggers as only a bug or an operator could.
    await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
      await tx.$executeRawUnsafe('UPDATE webhook_deliveries SET company_id = $1::uuid WHERE webhook_id = $2::uuid', other.id, hook.id);
    });
    const seen = receiver.requests.length;
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ picked: 1, dead: 1 });
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'dead', deadReason: 'cross_tenant_mismatch' });
    expect(receiver.requests.length).toBe(seen);
    expect((await db().webhook.findUniqueOrThrow({ where: { id: hook.id } })).disabledAt).toBeNull();
  });

  it('recovers stuck in_flight rows older than 20 s (database clock) at the start of a tick, and only those', async () => {
    const hook = await h.createWebhook(receiver.url('/stuck'));
    await h.touchCompany();
    await h.touchCompany();
    const [young, old] = await deliveriesOf(hook.id);
    // As a claim leaves them; one claimed 19 s ago, the other 21 s ago by the database's clock
    // (the injected clock plays no part: the claim stamped updated_at with the database's).
    await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica'); // keep the trigger from restamping updated_at
      await tx.$executeRawUnsafe(
        `UPDATE webhook_deliveries SET status = 'in_flight', updated_at = now() - interval '19 seconds' WHERE id = $1::uuid`,
        young!.id,
      );
      await tx.$executeRawUnsafe(`UPDATE webhook_deliveries SET status = 'in_flight', updated_at = now() - interval '21 seconds' WHERE id = $1::uuid`, old!.id);
    });
    const summary = await tick(h.t.services, h.sender);
    expect(summary).toMatchObject({ recovered: 1, picked: 1, delivered: 1 });
    const after = await deliveriesOf(hook.id);
    expect(after.find((r) => r.id === old!.id)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(after.find((r) => r.id === young!.id)).toMatchObject({ status: 'in_flight', attempts: 0 });
  });

  it('marks claimed rows of a disabled webhook dead (webhook_disabled) without sending', async () => {
    const hook = await h.createWebhook(receiver.url('/off'));
    await h.touchCompany();
    await call(h.app, 'PATCH', `/api/v1/companies/${h.tenant.companyId}/webhooks/${hook.id}`, { key: h.tenant.key, body: { active: false } });
    const seen = receiver.requests.length;
    await tick(h.t.services, h.sender);
    const [row] = await deliveriesOf(hook.id);
    expect(row).toMatchObject({ status: 'dead', deadReason: 'webhook_disabled' });
    expect(receiver.requests.length).toBe(seen);
  });

  it('records a healthy batch in one statement, and a batch with failures or disables in one transaction', async () => {
    for (let i = 0; i < 3; i++) await h.createWebhook(receiver.url(`/s${i}`));
    await h.touchCompany();
    let statements = 0;
    let transactions = 0;
    const prisma = h.t.services.database.prisma;
    const counted = new Proxy(prisma, {
      get(target, property, receiverObject) {
        const value = Reflect.get(target, property, receiverObject);
        if (typeof property === 'string' && typeof value === 'function') {
          return (...args: unknown[]) => {
            if (property === '$transaction') transactions++;
            else statements++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        if (typeof property === 'string' && value && typeof value === 'object') {
          // A model delegate (e.g. prisma.webhookDelivery): count its calls too.
          return new Proxy(value, {
            get: (model, method) => {
              const fn = Reflect.get(model, method);
              return typeof fn === 'function'
                ? (...args: unknown[]) => {
                    statements++;
                    return fn.apply(model, args);
                  }
                : fn;
            },
          });
        }
        return value;
      },
    });
    const services = { ...h.t.services, database: { ...h.t.services.database, prisma: counted } };
    expect(await processBatch(services, h.sender, 50)).toMatchObject({ picked: 3, delivered: 3 });
    expect({ statements, transactions }).toEqual({ statements: 2, transactions: 0 }); // claim, record

    const gone = await h.createWebhook(receiver.url('/s-gone'));
    receiver.setHandler((request) => (request.url === '/s-gone' ? { status: 410 } : request.url === '/s1' ? { status: 500 } : { status: 200 }));
    await h.touchCompany();
    statements = 0;
    const summary = await processBatch(services, h.sender, 50);
    expect(summary).toMatchObject({ picked: 4, delivered: 2, failed: 1, dead: 1 });
    expect({ statements, transactions }).toEqual({ statements: 1, transactions: 1 }); // claim, then everything else in one transaction
    expect((await db().webhook.findUniqueOrThrow({ where: { id: gone.id } })).disabledReason).toBe('http_410');
  });
});
