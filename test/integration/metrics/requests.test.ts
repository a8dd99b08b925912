import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, DB_TARGETS, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { postMcp } from '../../helpers/mcp-client.ts';
import { Scrape } from '../../helpers/metrics.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createMetrics, METRIC_NAMES, type Metrics } from '../../../ops/metrics.ts';
import { LATENCY_BUCKETS } from '../../../ops/request-series.ts';

/**
 * Request metrics (issue 19, operability): every answered request is counted once under the
 * registry operation it ran, its surface and its HTTP status, through the real app; MCP tool calls
 * also by the status REST gives the same request. The public API never serves the metrics.
 */
describe.each(DB_TARGETS)('request metrics (%s)', (target) => {
  let t: TestServices;
  let metrics: Metrics;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  const scrape = async () => new Scrape(await metrics.text());
  const requests = (scraped: Scrape, surface: string, operation: string, status: number) =>
    scraped.value(METRIC_NAMES.httpRequests, { surface, operation, status: String(status) }) ?? 0;
  const toolCalls = (scraped: Scrape, operation: string, status: number) =>
    scraped.value(METRIC_NAMES.mcpToolCalls, { operation, status: String(status) }) ?? 0;

  beforeAll(async () => {
    t = await createTestServices(target);
    metrics = createMetrics(t.services);
    app = buildApp(t.services, { metrics });
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts REST requests by operation and status; a route that matches nothing is unmatched; the API port has no /metrics', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await call(app, 'GET', '/api/v1/companies', { key: tenant.key })).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/companies')).status).toBe(401);
    expect((await call(app, 'GET', `/api/v1/companies/${randomUUID()}`, { key: tenant.key })).status).toBe(404);
    expect((await call(app, 'GET', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key })).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/no-such-thing')).status).toBe(404);
    expect((await call(app, 'DELETE', '/api/v1/companies')).status).toBe(405);
    const publicMetrics = await call(app, 'GET', '/metrics');
    expect(publicMetrics.status).toBe(404);
    expect(publicMetrics.body.error).toMatchObject({ code: 'ROUTE_NOT_FOUND', status: 404 });
    expect(publicMetrics.text).not.toContain(METRIC_NAMES.httpRequests);
    expect((await call(app, 'GET', '/llms.txt')).status).toBe(200);
    expect((await call(app, 'GET', '/api/v1/health')).status).toBe(200);

    const after = await scrape();
    const added = (surface: string, operation: string, status: number) =>
      requests(after, surface, operation, status) - requests(before, surface, operation, status);
    expect(added('rest', 'listCompanies', 200)).toBe(3);
    expect(added('rest', 'listCompanies', 401)).toBe(1);
    expect(added('rest', 'getCompany', 404)).toBe(1);
    expect(added('rest', 'getCompany', 200)).toBe(1);
    expect(added('rest', 'unmatched', 404)).toBe(2); // /api/v1/no-such-thing and /metrics
    expect(added('rest', 'unmatched', 405)).toBe(1);
    expect(added('rest', 'discovery', 200)).toBe(1);
    expect(added('rest', 'getHealth', 200)).toBe(1);
    // Nothing else moved: eleven requests, eleven counts.
    const total = (scraped: Scrape) => scraped.series(METRIC_NAMES.httpRequests).reduce((sum, sample) => sum + sample.value, 0);
    expect(total(after) - total(before)).toBe(11);
    // The labels are the registry's ids and the fixed words, never a path with an id in it.
    for (const sample of after.series(METRIC_NAMES.httpRequests)) expect(sample.labels.operation).toMatch(/^([a-z]+[A-Za-z]*)$/);
  });

  it('keeps a latency histogram per series whose count matches the counter', async () => {
    const scraped = await scrape();
    const labels = { surface: 'rest', operation: 'listCompanies', status: '200' };
    const count = scraped.value(`${METRIC_NAMES.httpRequestDuration}_count`, labels);
    expect(count).toBe(requests(scraped, 'rest', 'listCompanies', 200));
    expect(count).toBeGreaterThanOrEqual(3);
    const buckets = [...LATENCY_BUCKETS.map(String), '+Inf'].map((le) => scraped.value(`${METRIC_NAMES.httpRequestDuration}_bucket`, { ...labels, le }));
    expect(buckets.every((value) => value !== undefined)).toBe(true);
    // Cumulative: never decreasing, ending at the count.
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!).toBeGreaterThanOrEqual(buckets[i - 1]!);
    expect(buckets.at(-1)).toBe(count);
    expect(scraped.value(`${METRIC_NAMES.httpRequestDuration}_sum`, labels)).toBeGreaterThan(0);
  });

  it('counts /mcp requests under the operation of a lone tools/call (else mcp), and every tool call by the status REST would answer', async () => {
    const before = await scrape();
    const tool = (name: string, args: Record<string, unknown>, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const list = await postMcp(app, tool('companies.list', {}), { key: tenant.key });
    expect(list.status).toBe(200);
    expect(list.body.result.isError).toBeFalsy();
    const missing = await postMcp(app, tool('companies.get', { company_id: randomUUID() }), { key: tenant.key });
    expect(missing.status).toBe(200);
    expect(missing.body.result.isError).toBe(true);
    const invalid = await postMcp(app, tool('companies.get', { company_id: tenant.companyId, nope: 1 }), { key: tenant.key });
    expect(invalid.body.result.isError).toBe(true);
    expect((await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: tenant.key })).status).toBe(200);
    expect((await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(401);
    // A batch of two calls is one request (labelled mcp) and two tool calls.
    const batch = await postMcp(app, [tool('companies.list', {}, 1), tool('companies.get', { company_id: tenant.companyId }, 2)], { key: tenant.key });
    expect(batch.status).toBe(200);
    // Discovery mode: invoke_operation's call is counted under the operation it ran.
    const discovered = await postMcp(app, tool('invoke_operation', { name: 'companies.list', arguments: {} }), { key: tenant.key, query: '?mode=discover' });
    expect(discovered.body.result.isError).toBeFalsy();

    const after = await scrape();
    const added = (operation: string, status: number) => requests(after, 'mcp', operation, status) - requests(before, 'mcp', operation, status);
    expect(added('listCompanies', 200)).toBe(1);
    expect(added('getCompany', 200)).toBe(2); // isError results still answer HTTP 200
    expect(added('mcp', 200)).toBe(3); // tools/list, the batch, invoke_operation
    expect(added('mcp', 401)).toBe(1);
    const calls = (operation: string, status: number) => toolCalls(after, operation, status) - toolCalls(before, operation, status);
    expect(calls('listCompanies', 200)).toBe(3); // lone, in the batch, through invoke_operation
    expect(calls('getCompany', 404)).toBe(1);
    expect(calls('getCompany', 400)).toBe(1);
    expect(calls('getCompany', 200)).toBe(1);
    // MCP requests never count as REST.
    expect(requests(after, 'rest', 'listCompanies', 200)).toBe(requests(before, 'rest', 'listCompanies', 200));
  });
});
