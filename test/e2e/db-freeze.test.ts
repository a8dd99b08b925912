import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../domain/bootstrap.ts';
import type { Services } from '../../domain/context.ts';
import { isDatabaseUnavailable, sqlState } from '../../domain/db/errors.ts';
import { LogCapture, TEST_ENCRYPTION_KEY, testConfig } from '../helpers/db.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { PG_CLUSTER_AVAILABLE, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { startEntry, type RunningProcess } from '../helpers/process.ts';
import { until } from '../helpers/until.ts';

/**
 * Issue 28, bounded waits: a database that freezes with its connections open (SIGSTOP; a network
 * partition without a reset) used to hang every request that needed it, without bound: the kernel
 * keeps acknowledging, so neither TCP keepalive nor the server's own timeout fires. Now every
 * statement has a client-side deadline that discards its connection, and new connections a
 * connect timeout: requests answer 503 with Retry-After, and the service recovers on SIGCONT.
 */
const STATEMENT_TIMEOUT_MS = 1_000; // the client's deadline is 1 s above it
/** What "within a few seconds" means here: the deadline (2 s) or the connect timeout (5 s), plus slack for a loaded machine. */
const ANSWER_BOUND_MS = 9_000;
/** Beyond this a request counts as hung (the old behaviour: it would wait for ever). */
const HUNG_MS = 30_000;

interface Answer {
  what: string;
  status: number | 'hung' | 'network';
  ms: number;
  code?: string;
  retryAfter?: string | null;
}

describe.skipIf(!PG_CLUSTER_AVAILABLE)('a frozen database (SIGSTOP on a private cluster)', () => {
  let cluster: PgCluster;
  let services: Services;
  let api: RunningProcess;
  let port: number;
  let tenant: Tenant;

  beforeAll(async () => {
    cluster = await startPgCluster();
    const db = await cluster.createDatabase('acct');
    services = await createServices(
      testConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) }),
      { logger: new LogCapture().logger },
    );
    tenant = await makeTenant(services.database.prisma);
    api = startEntry('cli/serve.ts', {
      DATABASE_URL: db.url,
      DATABASE_ANON_URL: db.anonUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-freeze-')),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      PORT: '0',
    });
    port = Number((await api.waitFor(/"port":(\d+)/))[1]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.thaw().catch(() => undefined);
    await api?.stop();
    await services?.database.close();
    await cluster?.destroy();
  });

  const request = async (what: string, method: string, path: string, body?: unknown): Promise<Answer> => {
    const startedAt = Date.now();
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(HUNG_MS),
      });
      const text = await response.text();
      const code = response.status >= 400 ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
      return { what, status: response.status, ms: Date.now() - startedAt, ...(code && { code }), retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      return { what, status: (error as Error).name === 'TimeoutError' ? 'hung' : 'network', ms: Date.now() - startedAt };
    }
  };
  const wave = (label: string) =>
    Promise.all([
      request(`${label} list 1`, 'GET', '/api/v1/companies'),
      request(`${label} list 2`, 'GET', '/api/v1/companies'),
      request(`${label} get`, 'GET', `/api/v1/companies/${tenant.companyId}`),
      request(`${label} patch`, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { name: `Frozen ${label} AB` }),
      request(`${label} health`, 'GET', '/api/v1/health'),
    ]);

  it('the server cancels a statement past DATABASE_STATEMENT_TIMEOUT_MS (57014, answered as unavailable) and keeps the connection', async () => {
    const failure = await services.database.sql.query('SELECT pg_sleep(3)', []).then(
      () => null,
      (error: unknown) => error,
    );
    expect(sqlState(failure)).toBe('57014');
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(await services.database.sql.query<{ one: number }>('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });

  it('answers 503 with Retry-After within seconds while frozen, and serves again after SIGCONT', async () => {
    expect((await request('warm-up', 'GET', '/api/v1/companies')).status).toBe(200);
    await cluster.freeze();
    // The first wave meets the pool's open connections (the deadline), the second new ones (the connect timeout).
    const answers = [...(await wave('first')), ...(await wave('second'))];
    await cluster.thaw();
    const unexpected = answers.filter((a) => !(a.status === 503 && a.code === 'SERVICE_UNAVAILABLE' && a.retryAfter === '5' && a.ms < ANSWER_BOUND_MS));
    expect(unexpected, JSON.stringify(answers)).toEqual([]);

    await until(async () => (await request('after', 'GET', '/api/v1/companies')).status === 200, 'a 200 after SIGCONT', 60_000);
    const write = await request('after patch', 'PATCH', `/api/v1/companies/${tenant.companyId}`, { name: 'Thawed AB' });
    expect(write.status).toBe(200);
    expect(api.child.exitCode).toBeNull();
    process.stdout.write(`frozen database: ${JSON.stringify(answers.map((a) => [a.what, a.status, a.ms]))}\n`);
  }, 180_000);
});
