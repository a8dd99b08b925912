import { sieImportRunnerWith } from '../../helpers/sie-import.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { books } from '../../helpers/ledger.ts';
import { download } from '../../helpers/reports.ts';
import { blobOf, send } from '../../helpers/documents.ts';
import { generatedSie } from '../../helpers/sie.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createOperationRunner, LeaseLost, type Job } from '../../../domain/operations/runner.ts';
import { OPERATION_KIND_RUNNERS } from '../../../domain/operations/kinds.ts';
import { SIE_IMPORT_BATCH } from '../../../domain/sie/import.ts';
import { decodeSie, encodeSie } from '../../../domain/sie/format.ts';

const NOW = new Date('2027-01-15T10:00:00.000Z');

/**
 * The generated file of `count` vouchers, with what an import creates besides entries: a previous
 * year with its closing balances and the opening balances (#RAR -1, #UB -1: comparative figures;
 * #IB 0: an IB entry in a new 2025), a sub-account the chart
 * lacks (19301), and a dimension with an object used on a row.
 */
function richFile(count: number): Buffer {
  const text = decodeSie(generatedSie(count))
    .replace(
      '#RAR 0 20260101 20261231\r\n',
      '#RAR 0 20260101 20261231\r\n#RAR -1 20250101 20251231\r\n#KONTO 19301 "Bank, projektkonto"\r\n#DIM 6 "Projekt"\r\n#OBJEKT 6 "P1" "Projekt ett"\r\n' +
        '#IB 0 1930 5000.00\r\n#IB 0 2081 -5000.00\r\n#UB -1 1930 5000.00\r\n#UB -1 2081 -5000.00\r\n',
    )
    .replace(/#TRANS 1930 \{\}/, '#TRANS 19301 {6 "P1"}');
  return Buffer.from(encodeSie(text));
}

describe.each(DB_TARGETS)('an SIE import is all or nothing (%s)', (target) => {
  // Two batches and part of a third on this engine.
  const COUNT = SIE_IMPORT_BATCH[target] * 2 + 37;
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  const runner = () => createOperationRunner(t.services, { kinds: OPERATION_KIND_RUNNERS });

  /** A runner whose job stops dead (as SIGKILL would) inside its `at`-th checkpoint transaction, or does `hook` there. */
  const runnerStoppingAt = (at: number, hook?: (tx: Parameters<Job['checkpointIn']>[0], job: Job) => Promise<void>) => {
    let checkpoints = 0;
    return sieImportRunnerWith(t.services, (job) => async (tx, progress, message, checkpoint, options) => {
      if (++checkpoints === at && hook) await hook(tx, job);
      await job.checkpointIn(tx, progress, message, checkpoint, options);
      if (checkpoints === at && !hook) throw new LeaseLost(job.operationId);
    });
  };

  const upload = async (tenant: Tenant, bytes: Buffer): Promise<string> => {
    const form = new FormData();
    form.append('file', blobOf(bytes, 'text/plain'), 'bokforing.se');
    const started = await send(app, tenant.key, `/api/v1/companies/${tenant.companyId}/sie-imports`, form);
    expect(started.status, started.text).toBe(202);
    return started.body.data.id;
  };

  /** Everything an import can leave in the database, counted in SQL (hidden rows included). */
  const leftovers = async (companyId: string) => {
    const [row] = await t.services.database.prisma.$queryRawUnsafe<Record<string, number | string>[]>(
      `SELECT (SELECT count(*)::int FROM journal_entries WHERE company_id = $1::uuid) AS entries,
              (SELECT count(*)::int FROM journal_lines WHERE company_id = $1::uuid) AS lines,
              (SELECT count(*)::int FROM journal_line_objects WHERE company_id = $1::uuid) AS line_objects,
              (SELECT count(*)::int FROM fiscal_years WHERE company_id = $1::uuid) AS years,
              (SELECT count(*)::int FROM periods WHERE company_id = $1::uuid) AS periods,
              (SELECT count(*)::int FROM accounts WHERE company_id = $1::uuid) AS accounts,
              (SELECT count(*)::int FROM dimensions WHERE company_id = $1::uuid) AS dimensions,
              (SELECT count(*)::int FROM dimension_objects WHERE company_id = $1::uuid) AS objects,
              (SELECT count(*)::int FROM journal_series_counters WHERE company_id = $1::uuid) AS counters,
              (SELECT count(*)::int FROM pending_imports WHERE company_id = $1::uuid) AS pending,
              (SELECT count(*)::int FROM comparative_years WHERE company_id = $1::uuid) AS comparative_years,
              (SELECT count(*)::int FROM comparative_balances WHERE company_id = $1::uuid) AS comparative_balances,
              (SELECT count(*)::int FROM events WHERE company_id = $1::uuid AND type IN ('journal_entry.committed', 'account.created')) AS events,
              (SELECT committed_debit::text FROM companies WHERE id = $1::uuid) AS committed_debit`,
      companyId,
    );
    return row!;
  };

  /** What the API shows of the books: every list and report an import could appear in. */
  const visible = async (tenant: Tenant) => {
    const b = books(app, tenant.key, tenant.companyId);
    const years = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years as { id: string }[];
    return {
      years: years.length,
      periods: (await b.send('GET', '/periods')).body.data.periods.length,
      entries: (await b.send('GET', '/journal-entries?limit=200')).body.data.journal_entries.length,
      sub_account: (await b.send('GET', '/accounts?number_from=19301&number_to=19301')).body.data.accounts.length,
      dimensions: (await b.send('GET', '/dimensions')).body.data.dimensions.length,
      balances_2026: (await b.send('GET', '/reports/account-balances?from=2026-01-01&to=2026-12-31')).body.error?.code ?? 'shown',
    };
  };

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
  });
  afterAll(async () => t?.close());

  it('mid-import nothing shows; cancelled while no runner held it, the next claim removes every entry, year, account, dimension and counter', async () => {
    const tenant = await makeTenant(t.services.database.prisma);
    const before = await leftovers(tenant.companyId);
    const shown = await visible(tenant);
    const id = await upload(tenant, richFile(COUNT));
    // The runner dies in the transaction of the second batch: setup and one batch are committed.
    expect(await runnerStoppingAt(3).runOnce()).toBe(true);
    const prisma = t.services.database.prisma;
    const mid = await leftovers(tenant.companyId);
    expect(mid).toMatchObject({
      entries: SIE_IMPORT_BATCH[target] + 1,
      years: Number(before.years) + 2,
      pending: 1,
      comparative_years: 1,
      comparative_balances: 2,
    });
    expect(await visible(tenant)).toEqual(shown);
    const b = books(app, tenant.key, tenant.companyId);
    const hiddenEntry = await prisma.journalEntry.findFirstOrThrow({ where: { companyId: tenant.companyId, series: 'A' } });
    expect((await b.send('GET', `/journal-entries/${hiddenEntry.id}`)).status).toBe(404);
    expect((await b.send('GET', '/reports/general-ledger?from=2026-01-01&to=2026-12-31')).body.error?.code).toBe('NO_FISCAL_YEAR');
    const year = await prisma.fiscalYear.findFirstOrThrow({ where: { companyId: tenant.companyId, startDate: new Date('2026-01-01T00:00:00Z') } });
    expect((await download(app, `/api/v1/companies/${tenant.companyId}/fiscal-years/${year.id}/sie`, { key: tenant.key })).status).toBe(404);
    // Its own rows cannot be dropped by deleting the operation: that would strand them.
    expect((await b.send('DELETE', `/operations/${id}`)).status).toBe(409);
    expect((await b.send('POST', `/operations/${id}/cancel`)).status).toBe(200);
    await prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, id);
    expect(await runner().runOnce()).toBe(true);
    expect((await b.send('GET', `/operations/${id}`)).body.data).toMatchObject({ status: 'cancelled', result: null });
    expect(await leftovers(tenant.companyId)).toEqual(before);
    expect(await visible(tenant)).toEqual(shown);
  });

  it('cancelled while it runs: stops at the next batch and removes what it wrote', async () => {
    const tenant = await makeTenant(t.services.database.prisma);
    const before = await leftovers(tenant.companyId);
    const id = await upload(tenant, richFile(COUNT));
    // The cancel arrives during the second batch (as POST …/cancel sets it).
    const cancelling = runnerStoppingAt(3, async (tx, job) => {
      await tx.db.$executeRawUnsafe(`UPDATE operations SET cancel_requested = true WHERE id = $1::uuid`, job.operationId);
    });
    expect(await cancelling.runOnce()).toBe(true);
    const b = books(app, tenant.key, tenant.companyId);
    expect((await b.send('GET', `/operations/${id}`)).body.data).toMatchObject({ status: 'cancelled', result: null });
    expect(await leftovers(tenant.companyId)).toEqual(before);
  });

  it('a failure mid-import (an account deactivated between batches) removes what it wrote and says why', async () => {
    const tenant = await makeTenant(t.services.database.prisma);
    const b = books(app, tenant.key, tenant.companyId);
    // 1930 is in the starter chart (so not the import's): the company can deactivate it while the import runs.
    expect((await b.send('GET', '/accounts?number_from=1930&number_to=1930')).body.data.accounts).toHaveLength(1);
    const before = await leftovers(tenant.companyId);
    const id = await upload(tenant, richFile(COUNT));
    expect(await runnerStoppingAt(3).runOnce()).toBe(true);
    expect((await b.send('PATCH', '/accounts/1930', { active: false })).status).toBe(200);
    const after = await leftovers(tenant.companyId);
    await t.services.database.prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, id);
    expect(await runner().runOnce()).toBe(true);
    const failed = (await b.send('GET', `/operations/${id}`)).body.data;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'ACCOUNT_INACTIVE' }, result: null });
    // The deactivation itself stays (it was the company's own change); everything of the import goes.
    expect(await leftovers(tenant.companyId)).toEqual({ ...before, events: after.events });
  });

  it('completed: all of it appears at once, with its counts, and each entry and new account announced once', async () => {
    const tenant = await makeTenant(t.services.database.prisma);
    const before = await leftovers(tenant.companyId);
    const id = await upload(tenant, richFile(COUNT));
    expect(await runner().runOnce()).toBe(true);
    const b = books(app, tenant.key, tenant.companyId);
    const done = (await b.send('GET', `/operations/${id}`)).body.data;
    expect(done).toMatchObject({
      status: 'succeeded',
      result: {
        verifications: COUNT,
        transactions: 2 * COUNT,
        accounts_created: ['19301', '3041'],
        dimensions: 1,
        objects: 1,
        line_objects: 1,
        fiscal_year: { start_date: '2026-01-01', end_date: '2026-12-31', created: true },
        opening_balance: { date: '2025-12-31', series: 'IB', lines: 2, fiscal_year_created: true },
        prior_years: [{ year: -1, start_date: '2025-01-01', end_date: '2025-12-31', balances: 2, stored: true }],
      },
    });
    const now = await leftovers(tenant.companyId);
    expect(now).toMatchObject({ entries: COUNT + 1, years: Number(before.years) + 2, pending: 0, events: Number(before.events) + COUNT + 1 + 2 });
    const shown = await visible(tenant);
    // The list shows one page of at most 200 entries.
    expect(shown).toMatchObject({ years: 2, entries: Math.min(COUNT + 1, 200), sub_account: 1, dimensions: 1, balances_2026: 'shown' });
    // Once complete, the entries are as immutable as any.
    const entry = await t.services.database.prisma.journalEntry.findFirstOrThrow({ where: { companyId: tenant.companyId, series: 'A' } });
    await expect(t.services.database.prisma.$executeRawUnsafe(`DELETE FROM journal_entries WHERE id = $1::uuid`, entry.id)).rejects.toThrow(/committed/);
  });
  it("one company's imports run one at a time, and another company's import is claimed past the waiting one", async () => {
    const a = await makeTenant(t.services.database.prisma);
    const other = await makeTenant(t.services.database.prisma);
    const first = await upload(a, generatedSie(COUNT));
    const second = await upload(a, generatedSie(10, { series: 'B' }));
    const others = await upload(other, generatedSie(10));
    // The test clock stands still: give the three their queue order explicitly.
    for (const [index, id] of [first, second, others].entries()) {
      await t.services.database.prisma.$executeRawUnsafe(
        `UPDATE operations SET created_at = created_at + $2 * interval '1 second' WHERE id = $1::uuid`,
        id,
        index,
      );
    }
    const status = async (tenant: Tenant, id: string) => (await books(app, tenant.key, tenant.companyId).send('GET', `/operations/${id}`)).body.data.status;
    // The first import is under way (its runner holds the lease): the company's second waits,
    // though it was queued before the other company's.
    expect(await runnerStoppingAt(3).runOnce()).toBe(true);
    expect(await status(a, first)).toBe('running');
    expect(await runner().runOnce()).toBe(true);
    expect(await status(other, others)).toBe('succeeded');
    expect(await status(a, second)).toBe('queued');
    expect(await runner().runOnce()).toBe(false);
    // Once the first is no longer held (its lease ran out), it resumes first, then the second runs.
    await t.services.database.prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, first);
    expect(await runner().runOnce()).toBe(true);
    expect(await status(a, first)).toBe('succeeded');
    expect(await status(a, second)).toBe('queued');
    expect(await runner().runOnce()).toBe(true);
    expect(await status(a, second)).toBe('succeeded');
  });
});
