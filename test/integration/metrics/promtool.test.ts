import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { postMcp } from '../../helpers/mcp-client.ts';
import { Scrape } from '../../helpers/metrics.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createMetrics, METRIC_NAMES, UNLINTABLE_DEFAULT_METRICS, type Metrics } from '../../../ops/metrics.ts';

/**
 * A scrape passes Prometheus' own linter, `promtool check metrics` (Debian's prometheus package;
 * .ci/run installs it): naming (`_total` only on counters, units as suffixes), HELP and TYPE, and
 * histogram series. Every kind of series is populated first: REST and MCP requests (counters and
 * the latency histogram), deliveries, finished operations, the backlog gauges and the process's own.
 */

const PROMTOOL = spawnSync('promtool', ['--version']).status === 0;
if (!PROMTOOL) console.warn('promtool is absent (apt-get install prometheus): the exposition lint is skipped');

describe('the metrics exposition', () => {
  let t: TestServices;
  let metrics: Metrics;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestServices('pglite');
    metrics = createMetrics(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    const app = buildApp(t.services, { metrics });
    expect((await call(app, 'GET', '/api/v1/companies', { key: tenant.key })).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/no-such-thing')).status).toBe(404);
    const listed = await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'companies.list', arguments: {} } }, { key: tenant.key });
    expect(listed.status).toBe(200);
    metrics.onDeliveries({ delivered: 2, failed: 1, dead: 0, recovered: 0 });
    metrics.onOperationFinished('sie_import', 'succeeded');
  });
  afterAll(async () => t?.close());

  it.skipIf(!PROMTOOL)('passes promtool check metrics with no finding', async () => {
    const text = await metrics.text();
    const scraped = new Scrape(text);
    // The scrape holds what the lint should see: a histogram with samples, counters, gauges.
    expect(scraped.series(`${METRIC_NAMES.httpRequestDuration}_bucket`).length).toBeGreaterThan(0);
    expect(scraped.value(METRIC_NAMES.mcpToolCalls, { operation: 'listCompanies', status: '200' })).toBe(1);
    expect(scraped.value(METRIC_NAMES.webhookDeliveries, { outcome: 'delivered' })).toBe(2);
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: lint.status, output: `${lint.stdout}${lint.stderr}`.trim() }).toEqual({ status: 0, output: '' });
  });

  it('keeps the per-type gauges prom-client sums into the dropped _total ones', async () => {
    const scraped = new Scrape(await metrics.text());
    for (const name of UNLINTABLE_DEFAULT_METRICS) {
      expect(scraped.declares(name), name).toBe(false);
      expect(scraped.declares(name.replace(/_total$/, '')), name).toBe(true);
    }
  });
});
