import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../helpers/db.ts';
import { dispatchHarness, type DispatchHarness } from '../../helpers/dispatch.ts';
import { startReceiver, type Receiver, type RecordedRequest } from '../../helpers/https-receiver.ts';
import { call } from '../../helpers/http.ts';
import { makeKey } from '../../helpers/factories.ts';
import { tick } from '../../../dispatcher/tick.ts';
import { standardWebhooksSecret, verifySignature } from '../../../dispatcher/sign.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from '../../../domain/webhooks/schemas.ts';

const stripe = new Stripe('sk_test_not_used_for_any_request');
const HOUR_MS = 3_600_000;

/**
 * Deliveries received over real HTTPS, verified with off-the-shelf libraries: Stripe's
 * constructEvent (X-Service-Signature), the standardwebhooks library (webhook-* headers) and our
 * verifySignature, before, during and after a secret rotation.
 */
describe.each(DB_TARGETS)('signatures and secret rotation (%s)', (target) => {
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

  const base = () => `/api/v1/companies/${h.tenant.companyId}/webhooks`;
  const rotate = (id: string, body?: unknown, key = h.tenant.key, idempotencyKey: string | null = randomUUID()) =>
    call(h.app, 'POST', `${base()}/${id}/rotate-secret`, { key, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

  /** One real delivery: emit an event, run a tick, return what the receiver got. */
  async function deliverOne(): Promise<RecordedRequest> {
    const seen = receiver.requests.length;
    await h.touchCompany();
    expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 1, delivered: 1 });
    return receiver.requests[seen]!;
  }

  const header = (request: RecordedRequest, name: string) => String(request.headers[name]);
  const seconds = () => Math.floor(h.clock.now().getTime() / 1000);
  const stripeVerifies = (request: RecordedRequest, secret: string): boolean => {
    try {
      const event = stripe.webhooks.constructEvent(request.body, header(request, 'x-service-signature'), secret, 300, undefined, h.clock.now().getTime());
      return event.id === JSON.parse(request.body).id;
    } catch {
      return false;
    }
  };
  const standardVerifies = (request: RecordedRequest, secret: string): boolean => {
    try {
      new StandardWebhook(standardWebhooksSecret(secret)).verify(request.body, request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };
  const oursVerifies = (request: RecordedRequest, secret: string | string[]): boolean =>
    verifySignature(header(request, 'x-service-signature'), request.body, secret, { now: seconds }).ok;

  it('the standardwebhooks library verifies a real delivery: webhook-id is the event id, stable across retries', async () => {
    h.clock.current = new Date(); // the library checks the timestamp against the real clock
    const hook = await h.createWebhook(receiver.url('/std'));
    receiver.setHandler(() => ({ status: 500 }));
    await h.touchCompany();
    await tick(h.t.services, h.sender);
    const first = receiver.requests.at(-1)!;
    receiver.setHandler(() => ({ status: 200 }));
    h.clock.advance(90_000); // the retry is due after 1 min (±10 %); still inside the library's 5-minute tolerance
    expect(await tick(h.t.services, h.sender)).toMatchObject({ picked: 1, delivered: 1 });
    const retry = receiver.requests.at(-1)!;

    const [delivery] = await h.t.services.database.prisma.webhookDelivery.findMany({ where: { webhookId: hook.id } });
    for (const request of [first, retry]) {
      expect(header(request, 'webhook-id')).toBe(delivery!.eventId);
      expect(header(request, 'webhook-timestamp')).toMatch(/^\d+$/);
      expect(header(request, 'webhook-timestamp')).toBe(/t=(\d+)/.exec(header(request, 'x-service-signature'))![1]);
      expect(header(request, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    expect(standardVerifies(retry, hook.secret)).toBe(true);
    expect(new StandardWebhook(standardWebhooksSecret(hook.secret)).verify(retry.body, retry.headers as Record<string, string>)).toMatchObject({
      id: delivery!.eventId,
      type: 'company.updated',
    });
    expect(standardVerifies(retry, 'f'.repeat(64))).toBe(false);
    expect(standardVerifies({ ...retry, body: `${retry.body} ` }, hook.secret)).toBe(false);
    expect(stripeVerifies(retry, hook.secret)).toBe(true);
  });

  it('rotation: during the overlap both secrets verify with Stripe, standardwebhooks and ours; afterwards only the new one', async () => {
    h.clock.current = new Date();
    const hook = await h.createWebhook(receiver.url('/rotate'));
    const before = await deliverOne();
    expect(header(before, 'x-service-signature').match(/v1=/g)).toHaveLength(1);

    const rotated = await rotate(hook.id, { overlap_seconds: 3600 });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh: string = rotated.body.data.secret;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(hook.secret);
    expect(rotated.body.data.previous_secret_expires_at).toBe(new Date(h.clock.now().getTime() + HOUR_MS).toISOString());
    expect(rotated.body.meta.audit.action).toBe('rotateWebhookSecret');

    const during = await deliverOne();
    const signature = header(during, 'x-service-signature');
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(header(during, 'webhook-signature').split(' ')).toHaveLength(2);
    for (const secret of [fresh, hook.secret]) {
      expect(stripeVerifies(during, secret), 'stripe').toBe(true);
      expect(standardVerifies(during, secret), 'standardwebhooks').toBe(true);
      expect(oursVerifies(during, secret), 'verifySignature').toBe(true);
    }
    expect(oursVerifies(during, ['0'.repeat(64), hook.secret])).toBe(true);
    // The new secret's signature comes first.
    expect(verifySignature(`t=${/t=(\d+)/.exec(signature)![1]},${signature.split(',')[1]}`, during.body, fresh, { now: seconds }).ok).toBe(true);

    // The overlap ends on the clock: the old secret signs nothing more and is erased.
    h.clock.advance(HOUR_MS + 1);
    const after = await deliverOne();
    expect(header(after, 'x-service-signature').match(/v1=/g)).toHaveLength(1);
    expect(stripeVerifies(after, fresh)).toBe(true);
    expect(oursVerifies(after, fresh)).toBe(true);
    expect(stripeVerifies(after, hook.secret)).toBe(false);
    expect(oursVerifies(after, hook.secret)).toBe(false);
    const stored = await h.t.services.database.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(stored).toMatchObject({ previousSecretEncrypted: null, previousSecretExpiresAt: null });
    expect(h.t.services.secretBox.decrypt(stored.secretEncrypted)).toBe(fresh);
    const shown = await call(h.app, 'GET', `${base()}/${hook.id}`, { key: h.tenant.key });
    expect(shown.body.data.previous_secret_expires_at).toBeNull();
    expect(shown.text).not.toContain(fresh);
  });

  it('expirePreviousWebhookSecret ends the overlap early; the default overlap is 24 h', async () => {
    h.clock.current = new Date();
    const hook = await h.createWebhook(receiver.url('/expire'));
    const rotated = await rotate(hook.id);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.previous_secret_expires_at).toBe(new Date(h.clock.now().getTime() + DEFAULT_ROTATION_OVERLAP_SECONDS * 1000).toISOString());
    const fresh: string = rotated.body.data.secret;

    const ended = await call(h.app, 'POST', `${base()}/${hook.id}/expire-previous-secret`, { key: h.tenant.key });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.data).toMatchObject({ id: hook.id, previous_secret_expires_at: null });
    expect(ended.body.data).not.toHaveProperty('secret');
    const after = await deliverOne();
    expect(oursVerifies(after, fresh)).toBe(true);
    expect(oursVerifies(after, hook.secret)).toBe(false);
    expect(standardVerifies(after, hook.secret)).toBe(false);
    expect(standardVerifies(after, fresh)).toBe(true);
    // Nothing to end: answers the webhook unchanged.
    const again = await call(h.app, 'POST', `${base()}/${hook.id}/expire-previous-secret`, { key: h.tenant.key });
    expect(again.status).toBe(200);
    expect(again.body.data.previous_secret_expires_at).toBeNull();
  });

  it('overlap 0 retires the old secret at once; rotating during an overlap keeps only the last two secrets', async () => {
    h.clock.current = new Date();
    const hook = await h.createWebhook(receiver.url('/twice'));
    const second = (await rotate(hook.id, { overlap_seconds: 600 })).body.data.secret as string;
    const third = (await rotate(hook.id, { overlap_seconds: 600 })).body.data.secret as string;
    const during = await deliverOne();
    expect(oursVerifies(during, third)).toBe(true);
    expect(oursVerifies(during, second)).toBe(true);
    expect(oursVerifies(during, hook.secret)).toBe(false);
    const fourth = await rotate(hook.id, { overlap_seconds: 0 });
    expect(fourth.body.data.previous_secret_expires_at).toBeNull();
    const after = await deliverOne();
    expect(oursVerifies(after, fourth.body.data.secret)).toBe(true);
    expect(oursVerifies(after, third)).toBe(false);
  });

  it('rotation needs an idempotency key, replays the same secret, bounds the overlap and keeps secrets encrypted', async () => {
    const hook = await h.createWebhook(receiver.url('/rules'));
    const missing = await rotate(hook.id, undefined, h.tenant.key, null);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    for (const overlap_seconds of [-1, MAX_ROTATION_OVERLAP_SECONDS + 1, 1.5, '60']) {
      const bad = await rotate(hook.id, { overlap_seconds });
      expect(bad.status, String(overlap_seconds)).toBe(400);
      expect(bad.body.error.details[0].path).toBe('body.overlap_seconds');
    }
    expect((await rotate(hook.id, { overlap: 5 })).status).toBe(400);
    const key = randomUUID();
    const first = await rotate(hook.id, { overlap_seconds: MAX_ROTATION_OVERLAP_SECONDS }, h.tenant.key, key);
    const replay = await rotate(hook.id, { overlap_seconds: MAX_ROTATION_OVERLAP_SECONDS }, h.tenant.key, key);
    expect(first.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.secret).toBe(first.body.data.secret);
    const stored = await h.t.services.database.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(stored.secretEncrypted).not.toContain(first.body.data.secret);
    expect(stored.previousSecretEncrypted).not.toContain(hook.secret);
    expect(h.t.services.secretBox.decrypt(stored.previousSecretEncrypted!)).toBe(hook.secret);
    expect((await rotate(randomUUID())).status).toBe(404);
  });

  it('rotating or expiring a payroll webhook needs payroll:read', async () => {
    const hook = await h.createWebhook(receiver.url('/payroll'), 'salary_run.booked');
    const noPayroll = await makeKey(h.t.services.database.prisma, h.tenant.userId, { scopes: SCOPES.filter((s) => s !== 'payroll:read') });
    const denied = await rotate(hook.id, undefined, noPayroll.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'payroll:read' });
    const expire = await call(h.app, 'POST', `${base()}/${hook.id}/expire-previous-secret`, { key: noPayroll.key });
    expect(expire.status).toBe(403);
    const stored = await h.t.services.database.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(h.t.services.secretBox.decrypt(stored.secretEncrypted)).toBe(hook.secret);
  });
});
