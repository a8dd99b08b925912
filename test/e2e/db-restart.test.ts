import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../domain/bootstrap.ts';
import type { Services } from '../../domain/context.ts';
import { DELIVERY_CHANNEL } from '../../domain/events/emit.ts';
import { OPERATIONS_CHANNEL } from '../../domain/operations/store.ts';
import { LogCapture, TEST_ENCRYPTION_KEY, testConfig } from '../helpers/db.ts';
import { LOOPBACK_CIDRS } from '../helpers/dispatch.ts';
import { makeTenant, makeWebhook, type Tenant } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/https-receiver.ts';
import { PG_CLUSTER_AVAILABLE, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { startEntry, type RunningProcess } from '../helpers/process.ts';
import { testCaFile } from '../helpers/test-ca.ts';
import { until } from '../helpers/until.ts';

/**
 * The database restarted under a running API process and a running worker process (issue 19,
 * faults): both keep running and reconnect by themselves, a request during the outage answers
 * 503 in the error envelope within a bound (never hangs, never a 500), every write that answered
 * 2xx has its event delivered, and a delivery arrives twice only where its attempt was in flight
 * at the restart (the attempt log shows it). A private cluster, so the restart disturbs no other
 * test file.
 */

/** No request may take longer than this, outage or not (the client gives up here and the test fails). */
const REQUEST_BOUND_MS = 10_000;
/** Successful writes wanted on each side of a fault, so it really happens under load. */
const WRITES_PER_PHASE = 20;
/** Requests answered while the server is down: long enough for the worker to back off more than once. */
const REQUESTS_DURING_OUTAGE = 100;

interface Outcome {
  name: string;
  startedAt: number;
  ms: number;
  status: number | 'timeout' | 'network';
  code?: string;
  retryAfter?: string | null;
  body?: string;
}

/** Clients PATCHing the company's name in a loop, each name unique, until stopped. */
function startLoad(port: number, tenant: Tenant, clients = 3): { outcomes: Outcome[]; stop(): Promise<Outcome[]> } {
  const outcomes: Outcome[] = [];
  let stopping = false;
  let n = 0;
  const client = async (c: number) => {
    while (!stopping) {
      const name = `Restart ${c}-${n++} AB`;
      const startedAt = Date.now();
      const outcome: Outcome = { name, startedAt, ms: 0, status: 'network' };
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/companies/${tenant.companyId}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
          signal: AbortSignal.timeout(REQUEST_BOUND_MS),
        });
        outcome.status = response.status;
        outcome.body = await response.text();
        outcome.retryAfter = response.headers.get('retry-after');
        if (response.status >= 400) outcome.code = (JSON.parse(outcome.body) as { error?: { code?: string } }).error?.code ?? 'no envelope';
      } catch (error) {
        outcome.status = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
        outcome.body = String(error);
      }
      outcome.ms = Date.now() - startedAt;
      outcomes.push(outcome);
      // A breath between requests keeps the volume (and the deliveries to check) moderate.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const running = Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return {
    outcomes,
    stop: async () => {
      stopping = true;
      await running;
      return outcomes;
    },
  };
}

const ok = (o: Outcome) => typeof o.status === 'number' && o.status >= 200 && o.status < 300;
const succeededAfter = (outcomes: readonly Outcome[], at: number) => outcomes.filter((o) => o.startedAt >= at && ok(o)).length;
/** Both processes still the ones started (never restarted); their output's tail if not. */
function expectAlive(...processes: RunningProcess[]): void {
  for (const p of processes)
    expect({ exitCode: p.child.exitCode, signal: p.child.signalCode }, p.stderr().slice(-2000) + p.stdout().slice(-2000)).toEqual({
      exitCode: null,
      signal: null,
    });
}

describe.skipIf(!PG_CLUSTER_AVAILABLE)('the database restarts under a running API and worker (private PostgreSQL cluster)', () => {
  let cluster: PgCluster;
  let services: Services;
  let receiver: Receiver;
  let api: RunningProcess;
  let worker: RunningProcess;
  let port: number;
  const logs = new LogCapture();
  /** When each request reached the receiver, by index in receiver.requests. */
  const receivedAt: number[] = [];

  beforeAll(async () => {
    cluster = await startPgCluster();
    const db = await cluster.createDatabase('acct');
    // Migrates (roles included) and seeds through the app's own services, as the processes see them.
    services = await createServices(testConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl }), { logger: logs.logger });
    receiver = await startReceiver({
      handler: () => {
        receivedAt.push(Date.now());
        return { status: 200 };
      },
    });
    const ca = testCaFile();
    const env = {
      DATABASE_URL: db.url,
      DATABASE_ANON_URL: db.anonUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-restart-')),
      PUBLIC_BASE_URL: 'https://api.example.test',
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS,
      WEBHOOK_CA_FILE: ca,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      RATE_LIMIT_PER_MINUTE: '1000000',
    };
    // The production layout: the API serves, a separate worker delivers (and runs operations).
    api = startEntry('cli/serve.ts', { ...env, PORT: '0', DISPATCHER_TIMER: 'false' });
    port = Number((await api.waitFor(/"port":(\d+)/))[1]);
    worker = startEntry('cli/worker.ts', env);
    await worker.waitFor(/delivery worker started/);
  });
  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await receiver?.close();
    await services?.database.close();
    await cluster?.destroy();
  });

  /** A company of its own per scenario, with a webhook on company.updated to the receiver. */
  async function scenario(): Promise<{ tenant: Tenant; webhookId: string }> {
    const tenant = await makeTenant(services.database.prisma);
    return { tenant, webhookId: await makeWebhook(services, { companyId: tenant.companyId, url: `https://127.0.0.1:${receiver.port}/hook`, name: 'restart' }) };
  }

  /** Backends LISTENing on a channel, as the database sees them. */
  const listeners = async (channel: string): Promise<number> => {
    const rows = await services.database.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`, [`LISTEN ${channel}`]);
    return rows[0]?.n ?? 0;
  };
  /** The worker's two listeners (deliveries, operations) are up; the API process runs neither. */
  const listening = async () => (await listeners(DELIVERY_CHANNEL)) === 1 && (await listeners(OPERATIONS_CHANNEL)) === 1;

  function checkAnswers(outcomes: readonly Outcome[]): void {
    // Never a hang, a dropped connection or a 500: a 2xx, or the catalogue's 503 with Retry-After.
    const unexpected = outcomes.filter((o) => !ok(o) && !(o.status === 503 && o.code === 'SERVICE_UNAVAILABLE' && o.retryAfter === '5'));
    expect(unexpected).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(REQUEST_BOUND_MS);
  }

  /**
   * Waits until every company.updated event of the company reached the receiver and every
   * delivery is delivered, then checks the answers against what arrived and the attempt log.
   */
  async function checkDeliveries(companyId: string, outcomes: readonly Outcome[]) {
    const prisma = services.database.prisma;
    const mine = () => receiver.requests.filter((r) => (JSON.parse(r.body) as { company_id: string }).company_id === companyId);
    // Bounded well beyond the 20 s stuck threshold: a batch in flight at the restart is recovered then.
    await until(
      async () => {
        if ((await prisma.webhookDelivery.count({ where: { companyId, status: { not: 'delivered' } } })) > 0) return false;
        const events = await prisma.event.findMany({ where: { companyId, type: 'company.updated' }, select: { id: true } });
        const seen = new Set(mine().map((r) => String(r.headers['x-service-event-id'])));
        return events.every((e) => seen.has(e.id));
      },
      'every event delivered',
      150_000,
    );

    const received = mine();
    const names = new Set(received.map((r) => (JSON.parse(r.body) as { data: { object: { name: string } } }).data.object.name));
    // None lost: every write that answered 2xx was delivered.
    expect(outcomes.filter(ok).filter((o) => !names.has(o.name))).toEqual([]);

    // Every delivery at least once; more than once only as often as the attempt log has attempts,
    // every one but the last not delivered (an attempt in flight at the restart, recovered as stuck).
    const times = new Map<string, number>();
    for (const r of received) {
      const id = String(r.headers['x-service-delivery-id']);
      times.set(id, (times.get(id) ?? 0) + 1);
    }
    const deliveries = await prisma.webhookDelivery.findMany({ where: { companyId }, select: { id: true } });
    expect(new Set(times.keys())).toEqual(new Set(deliveries.map((d) => d.id)));
    const repeated = [...times].filter(([, n]) => n > 1).map(([id]) => id);
    const attempts = await prisma.webhookDeliveryAttempt.findMany({ where: { deliveryId: { in: repeated } }, orderBy: { attemptNumber: 'asc' } });
    for (const id of repeated) {
      const log = attempts.filter((a) => a.deliveryId === id);
      expect(log.length, id).toBeGreaterThanOrEqual(times.get(id) as number);
      expect(
        log.slice(0, -1).map((a) => [a.outcome, a.errorClass]),
        id,
      ).toEqual(log.slice(0, -1).map(() => ['failed', 'stuck_recovered']));
      expect(log.at(-1)?.outcome, id).toBe('delivered');
    }
    return { writes_2xx: outcomes.filter(ok).length, events: deliveries.length, received: received.length, duplicates: received.length - times.size };
  }

  /** How long after `at` the first request arrived at the receiver. */
  const firstReceivedAfter = (at: number) => (receivedAt.find((t) => t >= at) ?? NaN) - at;

  function report(label: string, outcomes: readonly Outcome[], extra: Record<string, unknown>): void {
    const byStatus: Record<string, number> = {};
    for (const o of outcomes) byStatus[String(o.status)] = (byStatus[String(o.status)] ?? 0) + 1;
    const failed = outcomes.filter((o) => !ok(o));
    // The figures docs/reliability.md quotes.
    console.log(
      `[db-restart] ${label}: ${outcomes.length} requests ${JSON.stringify(byStatus)}; slowest ${Math.max(...outcomes.map((o) => o.ms))} ms, ` +
        `slowest non-2xx ${failed.length ? Math.max(...failed.map((o) => o.ms)) : 0} ms; ${JSON.stringify(extra)}`,
    );
  }

  it('pg_ctl restart -m fast under load: 2xx or a prompt 503, nothing lost, both processes reconnect', async () => {
    const { tenant } = await scenario();
    await until(listening, 'the worker LISTENing');
    const load = startLoad(port, tenant);
    await until(() => succeededAfter(load.outcomes, 0) >= WRITES_PER_PHASE, 'writes before the restart');
    const restartStarted = Date.now();
    await cluster.restart('fast');
    const restarted = Date.now();
    await until(() => succeededAfter(load.outcomes, restarted) >= WRITES_PER_PHASE, 'writes after the restart');
    const outcomes = await load.stop();
    const firstOk = Math.min(...outcomes.filter((o) => o.startedAt >= restarted && ok(o)).map((o) => o.startedAt + o.ms)) - restarted;

    expectAlive(api, worker);
    checkAnswers(outcomes);
    await until(listening, 'the worker LISTENing again');
    const listenBack = Date.now() - restarted;
    const delivered = await checkDeliveries(tenant.companyId, outcomes);
    report('restart -m fast', outcomes, {
      restart_ms: restarted - restartStarted,
      first_2xx_after_ms: firstOk,
      first_delivery_after_ms: firstReceivedAfter(restarted),
      listen_back_within_ms: listenBack,
      ...delivered,
    });
  }, 300_000);

  it('a crash (pg_ctl stop -m immediate) and an outage: every request meanwhile is a prompt 503 (REST, MCP, health), then all resumes', async () => {
    const { tenant } = await scenario();
    await until(listening, 'the worker LISTENing');
    const load = startLoad(port, tenant);
    await until(() => succeededAfter(load.outcomes, 0) >= WRITES_PER_PHASE, 'writes before the crash');
    await cluster.stop('immediate');
    const down = Date.now();
    await until(() => load.outcomes.filter((o) => o.startedAt >= down).length >= REQUESTS_DURING_OUTAGE, 'requests during the outage');
    const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
    const mcp = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'Via MCP AB' } },
      }),
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    const upStarted = Date.now();
    await cluster.start();
    const up = Date.now();
    await until(() => succeededAfter(load.outcomes, up) >= WRITES_PER_PHASE, 'writes after the restart');
    const outcomes = await load.stop();
    const firstOk = Math.min(...outcomes.filter((o) => o.startedAt >= up && ok(o)).map((o) => o.startedAt + o.ms)) - up;

    // Whatever ran entirely while the server was down answered 503, promptly.
    const during = outcomes.filter((o) => o.startedAt >= down && o.startedAt + o.ms <= upStarted);
    expect(during.length).toBeGreaterThanOrEqual(REQUESTS_DURING_OUTAGE);
    expect(during.filter((o) => o.status !== 503)).toEqual([]);
    for (const response of [health, mcp]) {
      expect([response.status, response.headers.get('retry-after')]).toEqual([503, '5']);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    }
    expectAlive(api, worker);
    checkAnswers(outcomes);
    await until(listening, 'the worker LISTENing again');
    const listenBack = Date.now() - up;
    const delivered = await checkDeliveries(tenant.companyId, outcomes);
    report('stop -m immediate, outage, start', outcomes, {
      outage_ms: up - down,
      during_outage: during.length,
      slowest_during_outage_ms: Math.max(...during.map((o) => o.ms)),
      first_2xx_after_ms: firstOk,
      first_delivery_after_ms: firstReceivedAfter(up),
      listen_back_within_ms: listenBack,
      ...delivered,
    });
  }, 300_000);
});
