import { randomUUID } from 'node:crypto';
import { createTestServices, testResolver, type TestServices } from './db.ts';
import { makeTenant, type Tenant } from './factories.ts';
import { callOp } from './call-op.ts';
import { createWebhook as createWebhookOp } from '../../registry/operations/webhooks/create-webhook.ts';
import { updateCompany } from '../../registry/operations/companies/update-company.ts';
import { getTestPki } from './test-ca.ts';
import { buildApp } from '../../cli/build-app.ts';
import { createSender, type Sender } from '../../dispatcher/send.ts';
import type { DbTarget } from './db.ts';
import type { EventType } from '../../domain/events/types.ts';
import type { Resolver } from '../../domain/webhooks/url-safety.ts';

/** Loopback is private: tests and development allow it explicitly (DESIGN.md §6). */
export const LOOPBACK_CIDRS = '127.0.0.0/8,::1/128';

/** A mutable clock, so backoff and recovery are tested without waiting. */
export class TestClock {
  constructor(public current = new Date('2026-11-21T12:00:00.000Z')) {}
  readonly now = (): Date => this.current;
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface DispatchHarness {
  t: TestServices;
  app: ReturnType<typeof buildApp>;
  tenant: Tenant;
  clock: TestClock;
  sender: Sender;
  /** Creates a webhook through the API; returns its id and the secret shown once. */
  createWebhook(url: string, eventType?: EventType): Promise<{ id: string; secret: string }>;
  /** A real write that emits company.updated to the tenant's matching webhooks. */
  touchCompany(): Promise<void>;
  close(): Promise<void>;
}

/** Services on a fresh database, a tenant, and a sender trusting the test CA, on a test clock. */
export async function dispatchHarness(
  target: DbTarget,
  options: { resolver?: Resolver; timeoutMs?: number; config?: Record<string, string> } = {},
): Promise<DispatchHarness> {
  const clock = new TestClock();
  const resolver = options.resolver ?? testResolver;
  const t = await createTestServices(target, {
    now: clock.now,
    resolver,
    config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS, ...options.config },
  });
  const app = buildApp(t.services);
  const tenant = await makeTenant(t.services.database.prisma);
  const sender = createSender({
    urlPolicy: t.services.webhookUrlPolicy,
    extraCaCerts: [getTestPki().caCert],
    now: clock.now,
    ...(options.timeoutMs && { timeoutMs: options.timeoutMs }),
  });
  let renames = 0;
  return {
    t,
    app,
    tenant,
    clock,
    sender,
    createWebhook: async (url, eventType = 'company.updated') => {
      const response = await callOp(app, createWebhookOp, {
        params: { companyId: tenant.companyId },
        key: tenant.key,
        body: { event_type: eventType, webhook_url: url, name: 'receiver' },
        headers: { 'idempotency-key': randomUUID() },
      });
      if (response.status !== 201) throw new Error(`webhook create failed: ${response.text}`);
      return { id: response.body.data.id, secret: response.body.data.secret };
    },
    touchCompany: async () => {
      const response = await callOp(app, updateCompany, {
        params: { companyId: tenant.companyId },
        key: tenant.key,
        body: { name: `Renamed ${++renames}` },
      });
      if (response.status !== 200) throw new Error(`company update failed: ${response.text}`);
    },
    close: async () => {
      await sender.close();
      await t.close();
    },
  };
}
