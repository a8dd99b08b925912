import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices } from '../../../domain/bootstrap.ts';
import type { Services } from '../../../domain/context.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createPostgresDatabase, LogCapture, POSTGRES_AVAILABLE, testConfig } from '../../helpers/db.ts';
import { makeTenant, makeWebhook } from '../../helpers/factories.ts';
import { books, OFFICE_SUPPLIES } from '../../helpers/ledger.ts';
import { call } from '../../helpers/http.ts';
import { runMaintenance } from '../../../domain/webhooks/recover-stuck.ts';
import { claimDeliveries } from '../../../domain/webhooks/claim.ts';

/**
 * Issue 28, least privilege for the privileged path: the identity the server and workers run as
 * owned the tables, so it could TRUNCATE the ledger or disable the immutability triggers. Now
 * migrations run as the owner (DATABASE_MIGRATION_URL) and the service as api_runtime, which does
 * the service's work but none of those statements. A private database on the test server.
 */
describe.skipIf(!POSTGRES_AVAILABLE)('the runtime role (api_runtime) on PostgreSQL', () => {
  let drop: () => Promise<void>;
  let runtimeUrl: string;
  let services: Services;

  beforeAll(async () => {
    const db = await createPostgresDatabase();
    drop = db.drop;
    const runtime = new URL(db.url);
    runtime.username = 'api_runtime';
    runtimeUrl = runtime.toString();
    services = await createServices(testConfig({ DATABASE_URL: runtimeUrl, DATABASE_ANON_URL: db.anonUrl, DATABASE_MIGRATION_URL: db.url }), {
      logger: new LogCapture().logger,
    });
  });
  afterAll(async () => {
    await services?.database.close();
    await drop?.();
  });

  it('serves as api_runtime: writes, commits to the books, reads reports', async () => {
    const [me] = await services.database.prisma.$queryRaw<{ u: string }[]>`SELECT current_user AS u`;
    expect(me?.u).toBe('api_runtime');
    const tenant = await makeTenant(services.database.prisma);
    await makeWebhook(services, { companyId: tenant.companyId });
    const app = buildApp(services);
    const ledger = books(app, tenant.key, tenant.companyId);
    expect((await ledger.createYear('2026-01-01')).status).toBe(201);
    const committed = await ledger.book('2026-03-01', OFFICE_SUPPLIES);
    expect(committed.status).toBe('committed');
    const report = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/reports/trial-balance?from=2026-01-01&to=2026-12-31`, { key: tenant.key });
    expect(report.status, report.text).toBe(200);
    const renamed = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body: { name: 'Runtime AB' } });
    expect(renamed.status, renamed.text).toBe(200);
    // The worker's statements: stuck recovery and the claim (the rename's event made a delivery).
    await runMaintenance(services);
    expect((await claimDeliveries(services.database.prisma, 10, new Date(Date.now() + 60_000))).length).toBeGreaterThan(0);
  });

  const forbidden = [
    'TRUNCATE journal_lines',
    'TRUNCATE journal_entries CASCADE',
    'TRUNCATE audit_log',
    'ALTER TABLE journal_entries ADD COLUMN sneaky integer',
    'ALTER TABLE journal_lines DISABLE TRIGGER ALL',
    'ALTER TABLE journal_entries DISABLE TRIGGER USER',
    'ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only',
    'DROP TABLE journal_lines',
    'DROP FUNCTION refuse_change_append_only() CASCADE',
    'SET session_replication_role = replica',
    'SET LOCAL session_replication_role = replica',
    "SELECT set_config('session_replication_role', 'replica', false)",
    'DELETE FROM _prisma_migrations',
  ];
  it.each(forbidden)('refuses %s with SQLSTATE 42501', async (statement) => {
    const client = new pg.Client({ connectionString: runtimeUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      const error = await client.query(statement).then(
        () => null,
        (failure: { code?: string }) => failure.code ?? 'no code',
      );
      expect(error).toBe('42501');
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      await client.end();
    }
  });
});
