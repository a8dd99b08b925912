import { mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEntry, startNode, type RunningProcess } from '../helpers/process.ts';
import { createTestServices, POSTGRES_AVAILABLE, TEST_ENCRYPTION_KEY, type TestServices } from '../helpers/db.ts';
import { makeTenant, makeWebhook } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/https-receiver.ts';
import { testCaFile } from '../helpers/test-ca.ts';
import { LOOPBACK_CIDRS } from '../helpers/dispatch.ts';
import { Scrape } from '../helpers/metrics.ts';
import { METRIC_NAMES } from '../../ops/metrics.ts';

/**
 * The metrics port in real processes (issue 19, operability): `npm start` and `npm run worker`
 * serve GET /metrics on METRICS_PORT (0 here: the bound port is in the start-up line), never on
 * the API's port, and close it when they stop.
 */

const freshDataDir = (): string => mkdtempSync(join(tmpdir(), 'acct-metrics-'));

async function scrape(port: number): Promise<{ status: number; contentType: string | null; scraped: Scrape }> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  return { status: response.status, contentType: response.headers.get('content-type'), scraped: new Scrape(await response.text()) };
}

const refused = (port: number): Promise<string | undefined> =>
  fetch(`http://127.0.0.1:${port}/metrics`).then(
    () => undefined,
    (error: Error) => (error.cause as NodeJS.ErrnoException | undefined)?.code,
  );

describe('the metrics port of npm start', () => {
  const running: RunningProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
  });

  it("serves the process's metrics on METRICS_PORT only, refuses a taken one in one line, and closes it on SIGTERM", async () => {
    const server = startEntry('cli/serve.ts', { DATA_DIR: freshDataDir(), PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info' });
    running.push(server);
    const [, key] = await server.waitFor(/(sk_test_[0-9A-Za-z]{32})/);
    const [, apiPort] = await server.waitFor(/"port":(\d+)/);
    const [, metricsPort] = await server.waitFor(/"metrics_port":(\d+)/);
    expect(server.stderr() + server.stdout()).toContain(`metrics on http://127.0.0.1:${metricsPort}/metrics`);
    expect(metricsPort).not.toBe(apiPort);

    const api = `http://127.0.0.1:${apiPort}`;
    expect((await fetch(`${api}/api/v1/companies`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const onApi = await fetch(`${api}/metrics`);
    expect(onApi.status).toBe(404);
    expect((await onApi.json()).error.code).toBe('ROUTE_NOT_FOUND');

    const { status, contentType, scraped } = await scrape(Number(metricsPort));
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.value(METRIC_NAMES.httpRequests, { surface: 'rest', operation: 'listCompanies', status: '200' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.httpRequests, { surface: 'rest', operation: 'unmatched', status: '404' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.loopRunning, { loop: 'delivery' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.loopRunning, { loop: 'operations' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.webhookQueueDepth, { state: 'due' })).toBe(0);
    expect(scraped.value(METRIC_NAMES.webhookClaimLag)).toBe(0);
    expect(scraped.value(METRIC_NAMES.webhookDeliveries, { outcome: 'delivered' })).toBe(0);
    expect(scraped.series('process_cpu_user_seconds_total')).toHaveLength(1);
    expect(scraped.series('nodejs_heap_size_used_bytes')).toHaveLength(1);
    // The metrics server answers /metrics and nothing else.
    expect((await fetch(`http://127.0.0.1:${metricsPort}/api/v1/companies`)).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

    // A second server whose METRICS_PORT is taken stops with one line naming the setting.
    const second = startEntry('cli/serve.ts', { DATA_DIR: freshDataDir(), PORT: '0', METRICS_PORT: metricsPort!, LOG_LEVEL: 'silent' });
    running.push(second);
    const [code] = (await once(second.child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(second.stderr().trim().split('\n')).toEqual([
      `Port 127.0.0.1:${metricsPort} is already in use (another server?): stop it, or set METRICS_PORT to a free port.`,
    ]);

    server.child.kill('SIGTERM');
    const [exitCode] = (await once(server.child, 'exit')) as [number];
    expect(exitCode).toBe(0);
    expect(server.stdout() + server.stderr()).toMatch(/"event":"shutdown"/);
    expect(await refused(Number(metricsPort))).toBe('ECONNREFUSED');
  }, 180_000); // two process starts on the embedded database
});

describe.skipIf(!POSTGRES_AVAILABLE)('the metrics port of npm run worker (postgres)', () => {
  let t: TestServices;
  let receiver: Receiver;
  let worker: RunningProcess | undefined;
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await t?.close();
  });

  it('counts the deliveries this worker made and reports its loops; gone after SIGTERM', async () => {
    t = await createTestServices('postgres', { config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS } });
    receiver = await startReceiver();
    const { companyId } = await makeTenant(t.services.database.prisma);
    const hook = { id: await makeWebhook(t.services, { companyId, url: `https://127.0.0.1:${receiver.port}/hook`, name: 'metrics' }) };
    await t.services.database.prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload)
       SELECT $1::uuid, $2::uuid, 'company.updated', jsonb_build_object('id', gen_random_uuid(), 'n', g) FROM generate_series(1, 5) g`,
      hook.id,
      companyId,
    );
    const ca = testCaFile();
    worker = startNode('cli/worker.ts', {
      DATABASE_URL: t.database!.url,
      DATABASE_ANON_URL: t.database!.anonUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS,
      WEBHOOK_CA_FILE: ca,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    });
    const [, metricsPort] = await worker.waitFor(/"metrics_port":(\d+)/);
    const port = Number(metricsPort);

    const delivered = async () => (await scrape(port)).scraped.value(METRIC_NAMES.webhookDeliveries, { outcome: 'delivered' });
    await expect.poll(delivered, { timeout: 60_000, interval: 100 }).toBe(5);
    const { scraped } = await scrape(port);
    expect(receiver.requests).toHaveLength(5);
    expect(scraped.value(METRIC_NAMES.loopRunning, { loop: 'delivery' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.loopRunning, { loop: 'operations' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.webhookQueueDepth, { state: 'due' })).toBe(0);
    // A worker answers no API requests.
    expect(scraped.series(METRIC_NAMES.httpRequests)).toEqual([]);

    worker.child.kill('SIGTERM');
    const [code] = (await once(worker.child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(await refused(port)).toBe('ECONNREFUSED');
  }, 120_000);
});
