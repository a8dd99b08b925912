import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_ENCRYPTION_KEY, createTestServices, type TestServices } from '../helpers/db.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { blobOf, send } from '../helpers/documents.ts';
import { books } from '../helpers/ledger.ts';
import { startNode, type RunningProcess } from '../helpers/process.ts';
import { generatedAmount, generatedSie } from '../helpers/sie.ts';
import { buildApp } from '../../cli/build-app.ts';
import { SIE_IMPORT_BATCH } from '../../domain/sie/import.ts';

const BATCH = SIE_IMPORT_BATCH.postgres;
import { untilValue } from '../helpers/until.ts';

/**
 * Issue 15's acceptance: `npm run worker` killed with SIGKILL in the middle of a 20,000-verification
 * SIE import; after a restart the operation ends succeeded and the ledger holds each verification
 * exactly once, numbered 1-20,000 without a gap; killed and then cancelled, the restarted worker
 * removes all it wrote (issue 27). Real processes on PostgreSQL.
 */

const VERIFICATIONS = 20_000;
const FINAL = ['succeeded', 'failed', 'cancelled'];
/** Bounds only a broken run: 20,000 vouchers in batches of BATCH, then their announcements, on a loaded 2-core machine. */
const FINISH_LIMIT_MS = 600_000;

describe.skipIf(!POSTGRES_AVAILABLE)('SIE import survives SIGKILL of its worker (PostgreSQL)', () => {
  let t: TestServices;
  let tenant: Tenant;
  const workers: RunningProcess[] = [];

  beforeAll(async () => {
    t = await createTestServices('postgres');
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await t?.close();
  });

  const startWorker = async (env: Record<string, string> = {}): Promise<RunningProcess> => {
    const worker = startNode('cli/worker.ts', {
      DATABASE_URL: t.database!.url,
      DATABASE_ANON_URL: t.database!.anonUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      ...env,
    });
    workers.push(worker);
    await worker.waitFor(/delivery worker started/);
    return worker;
  };

  const state = async (id: string, companyId = tenant.companyId) => {
    // One statement, one snapshot: the checkpoint and the entries it accounts for.
    const [row] = await t.services.database.prisma.$queryRawUnsafe<
      { status: string; attempts: number; next: number | null; entries: number; error: string | null }[]
    >(
      `SELECT o.status, o.attempts, (o.checkpoint->>'next')::int AS next, o.error_message AS error,
              (SELECT count(*)::int FROM journal_entries e WHERE e.company_id = o.company_id AND e.series = 'A') AS entries
         FROM operations o WHERE o.id = $1::uuid AND o.company_id = $2::uuid`,
      id,
      companyId,
    );
    return row!;
  };

  it('killed mid-import, restarted: succeeded, 20,000 verifications exactly once, numbers 1-20,000 gapless', { timeout: 900_000 }, async () => {
    const first = await startWorker();

    const form = new FormData();
    form.append('file', blobOf(generatedSie(VERIFICATIONS), 'text/plain'), 'stora-bolaget.se');
    const started = await send(buildApp(t.services), tenant.key, `/api/v1/companies/${tenant.companyId}/sie-imports`, form);
    expect(started.status, started.text).toBe(202);
    const id = started.body.data.id as string;

    // Some batches are in, the rest not: kill it there, without warning.
    const progressed = await untilValue(
      () => state(id),
      (s) => FINAL.includes(s.status) || (s.next ?? 0) >= 2 * BATCH,
      'the import to be under way',
    );
    expect(progressed.status).toBe('running');
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');

    const killed = await state(id);
    expect(killed).toMatchObject({ status: 'running', attempts: 1 });
    expect(killed.next).toBeLessThan(VERIFICATIONS);
    // Whole batches and the checkpoint that names them, never one without the other.
    expect(killed.entries).toBe(killed.next);

    // The dead worker's lease runs out (moved back rather than waited for), and a new worker starts.
    await t.services.database.prisma.$executeRawUnsafe(
      `UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid AND status = 'running'`,
      id,
    );
    const second = await startWorker();
    const finished = await untilValue(
      () => state(id),
      (s) => FINAL.includes(s.status),
      'the import to finish',
      FINISH_LIMIT_MS,
    );
    expect(finished, finished.error ?? '').toMatchObject({ status: 'succeeded', attempts: 2, entries: VERIFICATIONS });
    await second.stop();

    const [ledger] = await t.services.database.prisma.$queryRawUnsafe<Record<string, bigint | number>[]>(
      `SELECT count(*)::int AS entries, count(DISTINCT e.number)::int AS numbers, min(e.number) AS low, max(e.number) AS high,
              count(DISTINCT e.description)::int AS texts, count(*) FILTER (WHERE e.status <> 'committed')::int AS drafts,
              (SELECT count(*)::int FROM journal_lines l WHERE l.company_id = $1::uuid) AS lines,
              (SELECT sum(l.debit)::bigint FROM journal_lines l WHERE l.company_id = $1::uuid) AS debit,
              (SELECT count(*)::int FROM events v WHERE v.company_id = $1::uuid AND v.type = 'journal_entry.committed') AS events
         FROM journal_entries e WHERE e.company_id = $1::uuid`,
      tenant.companyId,
    );
    let debit = 0n;
    for (let index = 1; index <= VERIFICATIONS; index += 1) debit += BigInt(generatedAmount(index));
    expect(ledger).toEqual({
      entries: VERIFICATIONS,
      numbers: VERIFICATIONS,
      low: 1,
      high: VERIFICATIONS,
      texts: VERIFICATIONS,
      drafts: 0,
      lines: 2 * VERIFICATIONS,
      debit,
      events: VERIFICATIONS,
    });
  });
  it('stopped with SIGTERM mid-import: exits within its grace period, and the import resumes from its checkpoint', { timeout: 900_000 }, async () => {
    const other = await makeTenant(t.services.database.prisma);
    // A grace period far shorter than the import: the worker must not wait for the whole of it.
    const first = await startWorker({ SHUTDOWN_GRACE_MS: '1' });
    const form = new FormData();
    form.append('file', blobOf(generatedSie(VERIFICATIONS), 'text/plain'), 'stora-bolaget.se');
    const started = await send(buildApp(t.services), other.key, `/api/v1/companies/${other.companyId}/sie-imports`, form);
    expect(started.status, started.text).toBe(202);
    const id = started.body.data.id as string;
    const progressed = await untilValue(
      () => state(id, other.companyId),
      (s) => FINAL.includes(s.status) || (s.next ?? 0) >= BATCH,
      'the import to be under way',
    );
    expect(progressed.status).toBe('running');

    first.child.kill('SIGTERM');
    const [code] = (await once(first.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const line = (first.stdout() + first.stderr()).split('\n').find((l) => l.includes('"event":"shutdown"'));
    expect(JSON.parse(line!)).toMatchObject({ signal: 'SIGTERM', abandoned: true });
    const stopped = await state(id, other.companyId);
    expect(stopped.status).toBe('running');
    expect(stopped.entries).toBe(stopped.next); // whole batches with their checkpoint
    expect(stopped.next).toBeLessThan(VERIFICATIONS);

    await t.services.database.prisma.$executeRawUnsafe(
      `UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid AND status = 'running'`,
      id,
    );
    const second = await startWorker();
    const finished = await untilValue(
      () => state(id, other.companyId),
      (s) => FINAL.includes(s.status),
      'the import to finish',
      FINISH_LIMIT_MS,
    );
    expect(finished, finished.error ?? '').toMatchObject({ status: 'succeeded', attempts: 2, entries: VERIFICATIONS });
    await second.stop();
    const [numbers] = await t.services.database.prisma.$queryRawUnsafe<{ distinct: number; low: number; high: number }[]>(
      `SELECT count(DISTINCT number)::int AS distinct, min(number) AS low, max(number) AS high FROM journal_entries WHERE company_id = $1::uuid`,
      other.companyId,
    );
    expect(numbers).toEqual({ distinct: VERIFICATIONS, low: 1, high: VERIFICATIONS });
  });
  it('killed mid-import, then cancelled: the restarted worker removes every entry, year and account, and ends it cancelled', { timeout: 900_000 }, async () => {
    const third = await makeTenant(t.services.database.prisma);
    const prisma = t.services.database.prisma;
    const leftovers = async () => {
      const [row] = await prisma.$queryRawUnsafe<Record<string, number>[]>(
        `SELECT (SELECT count(*)::int FROM journal_entries WHERE company_id = $1::uuid) AS entries,
                (SELECT count(*)::int FROM journal_lines WHERE company_id = $1::uuid) AS lines,
                (SELECT count(*)::int FROM fiscal_years WHERE company_id = $1::uuid) AS years,
                (SELECT count(*)::int FROM accounts WHERE company_id = $1::uuid) AS accounts,
                (SELECT count(*)::int FROM journal_series_counters WHERE company_id = $1::uuid) AS counters,
                (SELECT count(*)::int FROM pending_imports WHERE company_id = $1::uuid) AS pending`,
        third.companyId,
      );
      return row!;
    };
    const before = await leftovers();
    const first = await startWorker();
    const form = new FormData();
    form.append('file', blobOf(generatedSie(VERIFICATIONS), 'text/plain'), 'stora-bolaget.se');
    const app = buildApp(t.services);
    const started = await send(app, third.key, `/api/v1/companies/${third.companyId}/sie-imports`, form);
    expect(started.status, started.text).toBe(202);
    const id = started.body.data.id as string;
    const progressed = await untilValue(
      () => state(id, third.companyId),
      (s) => FINAL.includes(s.status) || (s.next ?? 0) >= 2 * BATCH,
      'the import to be under way',
    );
    expect(progressed.status).toBe('running');
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    expect((await leftovers()).entries).toBeGreaterThanOrEqual(2 * BATCH);

    const cancel = await books(app, third.key, third.companyId).send('POST', `/operations/${id}/cancel`);
    expect(cancel.status, cancel.text).toBe(200);
    await prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid AND status = 'running'`, id);
    const second = await startWorker();
    const finished = await untilValue(
      () => state(id, third.companyId),
      (s) => FINAL.includes(s.status),
      'the cancelled import to end',
      FINISH_LIMIT_MS,
    );
    await second.stop();
    expect(finished).toMatchObject({ status: 'cancelled', attempts: 2, entries: 0 });
    expect(await leftovers()).toEqual(before);
  });
});
