import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepListening } from '../../../domain/background/listen.ts';
import { DELIVERY_CHANNEL } from '../../../domain/events/emit.ts';
import { OPERATION_KIND_RUNNERS } from '../../../domain/operations/kinds.ts';
import { createOperationRunner } from '../../../domain/operations/runner.ts';
import { OPERATIONS_CHANNEL } from '../../../domain/operations/store.ts';
import { startWorker } from '../../../dispatcher/worker.ts';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { until as pollUntil } from '../../helpers/until.ts';

/** Gives up before the suite's 60 s test timeout, so a broken run names what it waited for. */
const until = (condition: () => boolean | Promise<boolean>, what: string) => pollUntil(condition, what, 30_000);

/**
 * A LISTEN lives on one session, and a database restart (or an administrator) ends every session:
 * the delivery worker and the operation runner must set theirs up again by themselves. Here the
 * server ends them with pg_terminate_backend (57P01, what a restart sends); the real restart is
 * test/e2e/db-restart.test.ts.
 */

describe.skipIf(!POSTGRES_AVAILABLE)('LISTEN sessions the server ends (PostgreSQL)', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());

  /** The backends of this test's database LISTENing on the channel. */
  const listenerPids = async (channel: string): Promise<number[]> =>
    (
      await t.services.database.sql.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1 ORDER BY pid`, [
        `LISTEN ${channel}`,
      ])
    ).map((row) => row.pid);
  const terminate = (pids: readonly number[]) => t.services.database.sql.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
  const notify = (channel: string) => t.services.database.sql.query("SELECT pg_notify($1, '')", [channel]);

  it('keepListening sets its LISTEN up again on a new session, calls back once to catch up, and hears notifications again', async () => {
    const channel = 'listen_test';
    let calls = 0;
    const listening = keepListening(t.services, channel, 'test', () => calls++);
    try {
      await until(async () => (await listenerPids(channel)).length === 1, 'the LISTEN');
      await notify(channel);
      await until(() => calls === 1, 'the first notification');

      const [first] = await listenerPids(channel);
      await terminate([first!]);
      await until(async () => {
        const pids = await listenerPids(channel);
        return pids.length === 1 && pids[0] !== first;
      }, 'a new LISTEN session');
      // Notifications sent while it was down are gone: one call on setting up again stands in for them.
      await until(() => calls === 2, 'the catch-up call');
      expect(t.logs.lines.some((line) => line.msg === 'test LISTEN connection lost; setting it up again')).toBe(true);
      await notify(channel);
      await until(() => calls === 3, 'a notification on the new session');
    } finally {
      await listening.stop();
    }
    await until(async () => (await listenerPids(channel)).length === 0, 'the LISTEN closed on stop');
  });

  it('the delivery worker and the operation runner both LISTEN again after their sessions are ended', async () => {
    const worker = startWorker(t.services, { lanes: 1 });
    const runner = createOperationRunner(t.services, { kinds: OPERATION_KIND_RUNNERS });
    runner.start();
    try {
      await until(async () => (await listenerPids(DELIVERY_CHANNEL)).length === 1 && (await listenerPids(OPERATIONS_CHANNEL)).length === 1, 'both LISTENs');
      const before = [...(await listenerPids(DELIVERY_CHANNEL)), ...(await listenerPids(OPERATIONS_CHANNEL))];
      await terminate(before);
      await until(async () => {
        const after = [...(await listenerPids(DELIVERY_CHANNEL)), ...(await listenerPids(OPERATIONS_CHANNEL))];
        return after.length === 2 && after.every((pid) => !before.includes(pid));
      }, 'both LISTENs on new sessions');
    } finally {
      await Promise.all([worker.stop(), runner.stop()]);
    }
  });
});
