import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { call } from '../../helpers/http.ts';
import { discoveryApp, startLocalServer, type LocalServer } from '../../helpers/discovery.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';
import { registry } from '../../../registry/index.ts';
import { capabilityIdOf, capabilityRecord } from '../../../registry/capabilities.ts';
import type { CapabilityRecord } from '../../../domain/capabilities/record.ts';
import { encodeKeysetCursor } from '../../../domain/kernel/pagination.ts';

const operations = registry.operations;
const listCompaniesRecord = capabilityRecord(registry.byId('listCompanies')!);

describe('capability records over HTTP', () => {
  let t: TestServices;
  let app: ReturnType<typeof discoveryApp>;

  beforeAll(async () => {
    t = await createTestServices('pglite');
    app = discoveryApp(t.services);
  });
  afterAll(async () => t?.close());

  /** Every page of the list from the first on, following next_cursor. */
  async function walk(query: string): Promise<CapabilityRecord[]> {
    const records: CapabilityRecord[] = [];
    let cursor: string | null = null;
    for (let page = 0; page <= operations.length; page++) {
      const response = await call(app, 'GET', `/api/v1/capabilities?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status, response.text).toBe(200);
      records.push(...response.body.data.capabilities);
      if (!response.body.meta.pagination.has_more) return records;
      cursor = response.body.meta.pagination.next_cursor;
    }
    throw new Error('pagination did not terminate');
  }
  const byId = (records: readonly CapabilityRecord[]) => records.map((record) => record.capabilityId);
  const sorted = (ids: string[]) => ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  it("lists every operation's record in the envelope, publicly, with the wrapped API headers, a page at a time", async () => {
    const response = await call(app, 'GET', '/api/v1/capabilities?limit=200', { headers: { authorization: 'Bearer junk' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-robots-tag')).toBe('noai, noimageai');
    expect(response.body.meta).toMatchObject({ request_id: response.headers.get('x-request-id'), api_version: API_VERSION });
    expect(response.body.meta.pagination).toEqual({ has_more: false, next_cursor: null });
    const everyId = sorted(operations.map((op) => capabilityIdOf(op.id)));
    expect(byId(response.body.data.capabilities)).toEqual(everyId);
    // Small pages: every record once, in capability id order.
    expect(byId(await walk('limit=7'))).toEqual(everyId);
  });

  it('filters by surface and risk level, and refuses unknown parameters and bad values', async () => {
    const mcp = await walk('limit=9&surface=mcp');
    expect(byId(mcp)).toEqual(sorted(operations.filter((op) => op.surfaces.includes('mcp')).map((op) => capabilityIdOf(op.id))));
    const policy = await walk('limit=9&risk_level=L3');
    expect(policy.length).toBeGreaterThan(0);
    expect(byId(policy)).toEqual(sorted(operations.filter((op) => capabilityRecord(op).requiresPolicy).map((op) => capabilityIdOf(op.id))));
    for (const query of ['page=2', 'surface=fax', 'risk_level=L2', 'limit=0']) {
      expect((await call(app, 'GET', `/api/v1/capabilities?${query}`)).status, query).toBe(400);
    }
    // A cursor from another list restarts at page one.
    const foreign = encodeKeysetCursor('periods', { start: '2026-01-01' });
    const restarted = await call(app, 'GET', `/api/v1/capabilities?limit=3&cursor=${foreign}`);
    expect(byId(restarted.body.data.capabilities)).toEqual(sorted(operations.map((op) => capabilityIdOf(op.id))).slice(0, 3));
  });

  it('resolves a record by capability id, operation id and either MCP tool name', async () => {
    for (const id of ['accounting.list_companies', 'listCompanies', 'companies.list', 'list_companies']) {
      const response = await call(app, 'GET', `/api/v1/capabilities/${id}`);
      expect(response.status, id).toBe(200);
      expect(response.body).toEqual({ data: listCompaniesRecord, meta: { request_id: expect.any(String), api_version: API_VERSION } });
    }
    for (const op of operations) {
      const response = await call(app, 'GET', `/api/v1/capabilities/${capabilityIdOf(op.id)}`);
      expect(response.body.data.operationId).toBe(op.id);
    }
  });

  it("serves the page every record's docsPath names", async () => {
    for (const op of operations) {
      const record = capabilityRecord(op);
      const page = await call(app, 'GET', record.docsPath);
      expect(page.status, record.docsPath).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(page.text).toContain(`# ${record.capabilityId}`);
      expect(page.text).toContain(op.summary);
      for (const tool of record.mcpToolRefs) expect(page.text).toContain(tool);
    }
    expect((await call(app, 'GET', '/capabilities/accounting.launch_rocket')).status).toBe(404);
  });

  it("answers an unknown capability with the catalogue's 404 and a malformed id with 400", async () => {
    const unknown = await call(app, 'GET', '/api/v1/capabilities/accounting.launch_rocket');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      request_id: unknown.headers.get('x-request-id'),
      recovery_hint: expect.any(String),
    });
    const malformed = await call(app, 'GET', `/api/v1/capabilities/${encodeURIComponent('../../etc')}`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].path).toBe('params.capabilityId');
    expect((await call(app, 'GET', '/api/v1/capabilities?dry_run=true')).status).toBe(400);
  });
});

describe('capability lookups through the upstream registry', () => {
  let t: TestServices;
  let app: ReturnType<typeof discoveryApp>;
  let upstream: LocalServer;
  /** What the stand-in registry answers, per capability id. */
  const answers = new Map<string, (response: ServerResponse) => void>();
  const json = (status: number, body: unknown) => (response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const foreignRecord = {
    ...listCompaniesRecord,
    capabilityId: 'payroll.run_salary',
    source: 'registry',
    ownerProduct: 'payroll',
    operationId: 'runSalary',
    ownerContractSha: 'a'.repeat(40),
    ownerContractRef: 'acme/payroll:contracts/openapi.yaml',
    docsPath: '/capabilities/payroll.run_salary',
    apiEndpointRefs: [],
  };

  beforeAll(async () => {
    upstream = await startLocalServer((request, response) => {
      const id = decodeURIComponent((request.url ?? '').replace(/^\/api\/capabilities\//, ''));
      const answer = answers.get(id);
      if (answer) answer(response);
      else json(404, { error: 'not found' })(response);
    });
    t = await createTestServices('pglite', { config: { CAPABILITY_REGISTRY_URL: `${upstream.url}/`, CAPABILITY_REGISTRY_TIMEOUT_MS: '300' } });
    app = discoveryApp(t.services);
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  const lookup = (id: string) => call(app, 'GET', `/api/v1/capabilities/${id}`);

  it("returns the upstream's valid record, asking for the canonical id", async () => {
    const fresh = { ...listCompaniesRecord, source: 'registry', riskClassification: 'unclassified', ownerContractSha: 'b'.repeat(40) };
    answers.set('accounting.list_companies', json(200, { data: fresh }));
    upstream.paths.length = 0;
    const response = await lookup('listCompanies');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(fresh);
    expect(upstream.paths).toEqual(['/api/capabilities/accounting.list_companies']);
  });

  it('returns records of other products that only the upstream knows', async () => {
    answers.set('payroll.run_salary', json(200, foreignRecord));
    const response = await lookup('payroll.run_salary');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(foreignRecord);
  });

  it('falls back to the local record with a sourceWarning when the upstream refuses with 403', async () => {
    answers.set('accounting.list_companies', json(403, { error: 'forbidden' }));
    const response = await lookup('accounting.list_companies');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ ...listCompaniesRecord, source: 'local_mirror', sourceWarning: expect.stringContaining('403') });
  });

  it.each([
    ['a 5xx', json(503, { error: 'down' }), /503/],
    ['a body that is not JSON', (r: ServerResponse) => r.writeHead(200, { 'content-type': 'application/json' }).end('<html>'), /invalid/],
    ['an invalid record', json(200, { data: { capabilityId: 'x' } }), /invalid/],
    ['a redirect', (r: ServerResponse) => r.writeHead(302, { location: 'http://127.0.0.1:9/' }).end(), /302/],
    ['a timeout', (r: ServerResponse) => setTimeout(() => json(200, { data: listCompaniesRecord })(r), 1_500), /in time/],
    ['a 404 for a capability we do have', json(404, {}), /no record/],
  ])('falls back to the local record with a sourceWarning on %s', async (_case, answer, warning) => {
    answers.set('accounting.list_companies', answer);
    const response = await lookup('listCompanies');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ ...listCompaniesRecord, sourceWarning: expect.stringMatching(warning) });
  });

  it('answers 404 when neither the upstream nor the local mirror knows the id', async () => {
    answers.delete('accounting.launch_rocket');
    const response = await lookup('accounting.launch_rocket');
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    answers.set('accounting.launch_rocket', json(403, {}));
    expect((await lookup('accounting.launch_rocket')).status).toBe(404);
  });

  it('falls back when the upstream cannot be reached at all', async () => {
    const closed = await startLocalServer(() => {});
    await closed.close();
    const offline = await createTestServices('pglite', { config: { CAPABILITY_REGISTRY_URL: closed.url } });
    try {
      const response = await call(discoveryApp(offline.services), 'GET', '/api/v1/capabilities/listCompanies');
      expect(response.status).toBe(200);
      expect(response.body.data.sourceWarning).toMatch(/could not be reached/);
      expect(offline.logs.lines.some((line) => line.msg === 'capability registry lookup failed')).toBe(true);
    } finally {
      await offline.close();
    }
  });
});
