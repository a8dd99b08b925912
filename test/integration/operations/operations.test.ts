import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { callOp } from '../../helpers/call-op.ts';
import { createWebhook } from '../../../registry/operations/webhooks/create-webhook.ts';
import { getOperation } from '../../../registry/operations/operations/get-operation.ts';
import { cancelOperation } from '../../../registry/operations/operations/cancel-operation.ts';
import { books } from '../../helpers/ledger.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createOperationRunner, type Job } from '../../../domain/operations/runner.ts';
import { OPERATION_KIND_RUNNERS } from '../../../domain/operations/kinds.ts';
import { eventEnvelopeSchemaFor } from '../../../domain/events/types.ts';
import { sqlState } from '../../../domain/db/errors.ts';
import { openDatabase } from '../../../domain/db/client.ts';

const NOW = new Date('2027-01-15T10:00:00.000Z');

describe.each(DB_TARGETS)('operations through HTTP (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let b: ReturnType<typeof books>;
  const runner = () => createOperationRunner(t.services, { kinds: OPERATION_KIND_RUNNERS });

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
    for (const type of ['fiscal_year.closed', 'operation.succeeded', 'operation.cancelled', 'operation.failed'] as const) {
      const hook = await callOp(app, createWebhook, {
        params: { companyId: tenant.companyId },
        key: tenant.key,
        headers: { 'idempotency-key': randomUUID() },
        body: { event_type: type, webhook_url: 'https://hooks.example.com/ops', name: type, description: '' },
      });
      expect(hook.status, hook.text).toBe(201);
    }
  });
  afterAll(async () => t?.close());

  /** Net debit of every class 1-2 account over committed lines dated up to `until`. */
  async function balanceSheet(until: string): Promise<Record<string, number>> {
    const rows = await t.services.database.prisma.$queryRawUnsafe<{ number: string; balance: bigint }[]>(
      `SELECT a.number, sum(l.debit - l.credit)::bigint AS balance
         FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
         JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
        WHERE l.company_id = $1::uuid AND e.status = 'committed' AND e.date <= $2::date AND a.number < '3000'
        GROUP BY a.number HAVING sum(l.debit - l.credit) <> 0 ORDER BY a.number`,
      tenant.companyId,
      until,
    );
    return Object.fromEntries(rows.map((r) => [r.number, Number(r.balance)]));
  }

  it('closes a fiscal year: refused while periods are open; then books the result to 2099, opens the next year, and the year stays closed', async () => {
    await b.book('2026-01-10', [
      { account: '1930', debit: 5_000_000 },
      { account: '2081', credit: 5_000_000 },
    ]);
    await b.book('2026-03-05', [
      { account: '1510', debit: 12_500_000 },
      { account: '3001', credit: 10_000_000 },
      { account: '2611', credit: 2_500_000 },
    ]);
    await b.book('2026-03-12', [
      { account: '6110', debit: 800_000 },
      { account: '2641', debit: 200_000 },
      { account: '1930', credit: 1_000_000 },
    ]);
    await b.book('2026-06-25', [
      { account: '7210', debit: 3_000_000 },
      { account: '1930', credit: 3_000_000 },
    ]);
    const year = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years[0];

    const early = await b.send('POST', `/fiscal-years/${year.id}/close`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('PERIODS_NOT_LOCKED');
    for (const period of (await b.send('GET', `/periods?fiscal_year_id=${year.id}`)).body.data.periods) {
      expect((await b.send('POST', `/periods/${period.id}/lock`)).status).toBe(200);
    }
    const closingBalances = await balanceSheet('2026-12-31');

    const preview = await b.send('POST', `/fiscal-years/${year.id}/close?dry_run=true`);
    expect(preview.status, preview.text).toBeLessThan(300);
    expect(preview.body.data.result).toMatchObject({ result: 10_000_000 - 800_000 - 3_000_000, voucher: 'Y1' });
    expect(preview.body.meta.would_emit).toEqual(expect.arrayContaining(['journal_entry.committed', 'fiscal_year.closed']));
    expect((await b.send('GET', '/fiscal-years')).body.data.fiscal_years).toHaveLength(1);

    const started = await b.send('POST', `/fiscal-years/${year.id}/close`);
    expect(started.status, started.text).toBe(202);
    expect(started.body.data).toMatchObject({ kind: 'close_fiscal_year', status: 'queued' });
    expect(await runner().runOnce()).toBe(true);
    const finished = await b.send('GET', `/operations/${started.body.data.id}`);
    expect(finished.body.data).toMatchObject({ status: 'succeeded', progress: 100, attempts: 1, error: null });
    const result = finished.body.data.result;
    expect(result).toMatchObject({ result: 6_200_000, voucher: 'Y1' });

    const closing = await b.send('GET', `/journal-entries/${result.closing_entry_id}`);
    expect(closing.body.data.lines.map((l: { account: string; debit: number; credit: number }) => [l.account, l.debit, l.credit])).toEqual([
      ['8999', 6_200_000, 0],
      ['2099', 0, 6_200_000],
    ]);
    // Next year's opening balances (classes 1-2) are this year's closing ones, the result now on 2099.
    expect(await balanceSheet('2026-12-31')).toEqual({ ...closingBalances, '2099': -6_200_000 });
    const years = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years;
    expect(years.map((y: { start_date: string; status: string }) => [y.start_date, y.status])).toEqual([
      ['2026-01-01', 'closed'],
      ['2027-01-01', 'open'],
    ]);
    const december = (await b.send('GET', `/periods?fiscal_year_id=${year.id}`)).body.data.periods[11];
    expect((await b.send('POST', `/periods/${december.id}/unlock`)).body.error.code).toBe('FISCAL_YEAR_CLOSED');
    expect((await b.send('POST', `/fiscal-years/${year.id}/close`)).body.error.code).toBe('FISCAL_YEAR_CLOSED');
  });

  it('cancels a queued operation at once; finished operations are fixed (409 over HTTP, 23514 in SQL)', async () => {
    const year = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years[1];
    for (const period of (await b.send('GET', `/periods?fiscal_year_id=${year.id}`)).body.data.periods) await b.send('POST', `/periods/${period.id}/lock`);
    const queued = (await b.send('POST', `/fiscal-years/${year.id}/close`)).body.data;
    const cancelled = await b.send('POST', `/operations/${queued.id}/cancel`);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled' });
    expect(cancelled.body.data.finished_at).not.toBeNull();
    expect(await runner().runOnce()).toBe(false);
    expect((await b.send('POST', `/operations/${queued.id}/cancel`)).body.error.code).toBe('OPERATION_FINISHED');
    expect((await b.send('DELETE', `/operations/${queued.id}`)).status).toBe(409);
    for (const statement of [`UPDATE operations SET progress = 5 WHERE id = '${queued.id}'`, `DELETE FROM operations WHERE id = '${queued.id}'`]) {
      const error = await t.services.database.prisma.$executeRawUnsafe(statement).then(
        () => null,
        (e: unknown) => e,
      );
      expect(sqlState(error), statement).toBe('23514');
    }
  });

  it('deletes queued and running operations', async () => {
    const year = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years[1];
    const queued = (await b.send('POST', `/fiscal-years/${year.id}/close`)).body.data;
    expect((await b.send('DELETE', `/operations/${queued.id}`)).status).toBe(204);
    expect((await b.send('GET', `/operations/${queued.id}`)).status).toBe(404);
    const running = (await b.send('POST', `/fiscal-years/${year.id}/close`)).body.data;
    await t.services.database.prisma.$executeRawUnsafe(
      `UPDATE operations SET status = 'running', lease_holder = 'elsewhere', lease_expires_at = now() + interval '1 minute' WHERE id = '${running.id}'`,
    );
    expect((await b.send('DELETE', `/operations/${running.id}`)).status).toBe(204);
  });

  it('cancels a running operation at its next checkpoint', async () => {
    const year = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years[1];
    const queued = (await b.send('POST', `/fiscal-years/${year.id}/close`)).body.data;
    let checkpoints = 0;
    const slow = createOperationRunner(t.services, {
      kinds: {
        close_fiscal_year: {
          scopes: [],
          handler: async (job: Job) => {
            for (;;) {
              await job.checkpointIn(job.ctx, ++checkpoints, `step ${checkpoints}`, { step: checkpoints });
              if (checkpoints === 1) {
                const asked = await b.send('POST', `/operations/${job.operationId}/cancel`);
                expect(asked.body.data).toMatchObject({ status: 'running', cancel_requested: true });
              }
            }
          },
        },
      },
    });
    expect(await slow.runOnce()).toBe(true);
    expect(checkpoints).toBe(2);
    expect((await b.send('GET', `/operations/${queued.id}`)).body.data).toMatchObject({ status: 'cancelled', cancel_requested: true });
  });

  it('picks up an operation whose runner died (expired lease) and finishes it, counting the attempt', async () => {
    const year = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years[1];
    const queued = (await b.send('POST', `/fiscal-years/${year.id}/close`)).body.data;
    await t.services.database.prisma.$executeRawUnsafe(
      `UPDATE operations SET status = 'running', attempts = 1, started_at = now(), lease_holder = 'dead-runner',
              lease_expires_at = now() - interval '1 second' WHERE id = '${queued.id}'`,
    );
    expect(await runner().runOnce()).toBe(true);
    const done = (await b.send('GET', `/operations/${queued.id}`)).body.data;
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('leaves an operation the database dropped mid-run to its lease, never failing it; the next claim finishes it', async () => {
    const years = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years;
    const queued = await t.services.database.prisma.operation.create({
      data: { companyId: tenant.companyId, kind: 'close_fiscal_year', input: { fiscal_year_id: years[0].id } },
    });
    // A real driver error of a database that is not there (nothing listens on port 1), as a restart gives.
    const gone = await openDatabase({
      databaseUrl: 'postgres://postgres@127.0.0.1:1/gone',
      anonDatabaseUrl: 'postgres://postgres@127.0.0.1:1/gone',
      dataDir: 'memory',
    });
    const refused = await gone.sql.query('SELECT 1').then(
      () => null,
      (error: unknown) => error,
    );
    await gone.close();
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    const interrupted = createOperationRunner(t.services, {
      kinds: {
        close_fiscal_year: {
          scopes: [],
          handler: async (job: Job) => {
            await job.checkpointIn(job.ctx, 10, 'started', { step: 1 });
            throw refused;
          },
        },
      },
    });
    expect(await interrupted.runOnce()).toBe(true);
    expect((await b.send('GET', `/operations/${queued.id}`)).body.data).toMatchObject({ status: 'running', attempts: 1, error: null });
    // Its lease runs out (moved back in SQL rather than waited for), and a runner resumes it.
    await t.services.database.prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = '${queued.id}'`);
    let resumedFrom: unknown;
    const next = createOperationRunner(t.services, {
      kinds: {
        close_fiscal_year: {
          scopes: [],
          handler: async (job: Job) => {
            resumedFrom = job.checkpoint;
            return {};
          },
        },
      },
    });
    expect(await next.runOnce()).toBe(true);
    expect(resumedFrom).toEqual({ step: 1 });
    expect((await b.send('GET', `/operations/${queued.id}`)).body.data).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('fails an operation with the catalogue code when its work is refused', async () => {
    const years = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years;
    const queued = await t.services.database.prisma.operation.create({
      data: { companyId: tenant.companyId, kind: 'close_fiscal_year', input: { fiscal_year_id: years[0].id } },
    });
    expect(await runner().runOnce()).toBe(true);
    const failed = (await b.send('GET', `/operations/${queued.id}`)).body.data;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'FISCAL_YEAR_CLOSED' } });
  });

  it('lists operations newest first with filters, and another company sees none', async () => {
    const all = (await b.send('GET', '/operations?limit=2')).body;
    expect(all.data.operations).toHaveLength(2);
    expect(all.meta.pagination.has_more).toBe(true);
    const succeeded = (await b.send('GET', '/operations?status=succeeded')).body.data.operations;
    expect(succeeded.every((o: { status: string }) => o.status === 'succeeded')).toBe(true);
    expect((await b.send('GET', '/operations?kind=nope')).status).toBe(400);
    const other = await makeTenant(t.services.database.prisma);
    const id = succeeded[0].id;
    expect((await callOp(app, getOperation, { params: { companyId: other.companyId, operationId: id }, key: other.key })).status).toBe(404);
    expect((await callOp(app, cancelOperation, { params: { companyId: other.companyId, operationId: id }, key: other.key })).status).toBe(404);
  });

  it("re-enqueues a webhook's dead deliveries in a window as fresh ones, exactly once", async () => {
    const hook = (
      await callOp(app, createWebhook, {
        params: { companyId: tenant.companyId },
        key: tenant.key,
        headers: { 'idempotency-key': randomUUID() },
        body: { event_type: 'journal_entry.committed', webhook_url: 'https://hooks.example.com/recover', name: 'r', description: '' },
      })
    ).body.data;
    const prisma = t.services.database.prisma;
    await prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, attempts, dead_reason, created_at)
       SELECT $1::uuid, $2::uuid, 'journal_entry.committed', jsonb_build_object('n', g), 'dead', 8, 'attempts_exhausted',
              '2027-01-10T00:00:00Z'::timestamptz + g * interval '1 second'
         FROM generate_series(1, 1203) g`,
      hook.id,
      tenant.companyId,
    );
    const started = await b.send('POST', `/webhooks/${hook.id}/recover`, { since: '2027-01-10T00:00:00.000Z', until: '2027-01-11T00:00:00.000Z' });
    expect(started.status, started.text).toBe(202);
    expect(await runner().runOnce()).toBe(true);
    const done = (await b.send('GET', `/operations/${started.body.data.id}`)).body.data;
    expect(done).toMatchObject({ status: 'succeeded', result: { recovered: 1203 } });
    const fresh = await prisma.webhookDelivery.findMany({ where: { webhookId: hook.id, status: 'pending' }, select: { retryOf: true } });
    expect(fresh).toHaveLength(1203);
    expect(new Set(fresh.map((d) => d.retryOf)).size).toBe(1203);
  });

  it('emits operation and fiscal-year events valid against their schemas', async () => {
    for (const type of ['fiscal_year.closed', 'operation.succeeded', 'operation.cancelled', 'operation.failed'] as const) {
      const deliveries = await t.services.database.prisma.webhookDelivery.findMany({ where: { companyId: tenant.companyId, eventType: type } });
      expect(deliveries.length, type).toBeGreaterThan(0);
      for (const d of deliveries) expect(eventEnvelopeSchemaFor(type).safeParse(d.payload).success, type).toBe(true);
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)('two runners on PostgreSQL never run one operation at once', () => {
  let t: TestServices;

  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());

  it('splits 30 operations between two runners, each run by exactly one', async () => {
    const tenant = await makeTenant(t.services.database.prisma);
    await t.services.database.prisma.operation.createMany({
      data: Array.from({ length: 30 }, () => ({ companyId: tenant.companyId, kind: 'close_fiscal_year', input: {} })),
    });
    const running = new Set<string>();
    const ran: string[] = [];
    const kinds = {
      close_fiscal_year: {
        scopes: [],
        handler: async (job: Job) => {
          // The assertion lives inside the work: nobody else may be running this operation now.
          if (running.has(job.operationId)) throw new Error(`operation ${job.operationId} ran twice at once`);
          running.add(job.operationId);
          await job.checkpointIn(job.ctx, 50, 'half');
          await new Promise((resolve) => setImmediate(resolve));
          running.delete(job.operationId);
          ran.push(job.operationId);
          return {};
        },
      },
    };
    const a = createOperationRunner(t.services, { kinds, holder: 'a' });
    const c = createOperationRunner(t.services, { kinds, holder: 'c' });
    const drain = async (runner: typeof a) => {
      while (await runner.runOnce());
    };
    await Promise.all([drain(a), drain(c)]);
    expect(ran).toHaveLength(30);
    expect(new Set(ran).size).toBe(30);
    const statuses = await t.services.database.prisma.operation.groupBy({ by: ['status'], _count: true });
    expect(statuses).toEqual([{ status: 'succeeded', _count: 30 }]);
  });
});
