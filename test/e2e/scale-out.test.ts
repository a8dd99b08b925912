import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_ENCRYPTION_KEY, createTestServices, type TestServices } from '../helpers/db.ts';
import { makeKey, makeTenant, makeWebhook } from '../helpers/factories.ts';
import { startReceiver, type Receiver } from '../helpers/https-receiver.ts';
import { testCaFile } from '../helpers/test-ca.ts';
import { startEntry, type RunningProcess } from '../helpers/process.ts';
import { LOOPBACK_CIDRS } from '../helpers/dispatch.ts';
import { OFFICE_SUPPLIES } from '../helpers/ledger.ts';
import { PGBOUNCER_BINARY, startPgbouncer, type Pgbouncer } from '../helpers/pgbouncer.ts';
import { RATE_LIMIT_WINDOW_MS } from '../../domain/ratelimit/window.ts';
import { until } from '../helpers/until.ts';

/**
 * Scale-out on one PostgreSQL (issue 19): two API processes (cli/serve.ts) and two delivery
 * workers (cli/worker.ts), once with direct connections and once with the API's and workers'
 * query connections through PgBouncer in transaction mode (LISTEN and migrations stay direct,
 * DATABASE_DIRECT_URL). Under one mixed load spread over both API processes:
 * - the rate limit is exact in total across the processes, not per process;
 * - an Idempotency-Key sent concurrently to both processes has one effect and one stored reply
 *   (concurrent duplicates get 409 IDEMPOTENCY_IN_PROGRESS, later ones the replay);
 * - every delivery the writes queue is sent exactly once by the two workers together;
 * - no request answers 5xx.
 */

/** RATE_LIMIT_PER_MINUTE of the API processes: the limited key's budget per window in total. */
const LIMIT = 20;
/** Requests of the limited key in one burst, half to each API process. */
const BURST = 60;
/** Journal entries drafted and committed per round (each draft and commit emits an event). */
const ENTRIES = 40;
/** Idempotency keys sent concurrently to both processes, SENDS_PER_KEY times each. */
const CONTENDED_KEYS = 10;
const SENDS_PER_KEY = 4;
/** Plain reads mixed in. */
const READS = 40;
/** Requests in flight at once from the ledger part of the load (the burst comes on top). */
const CONCURRENCY = 16;
/** A round whose burst straddles a window boundary cannot prove exactness: run another. */
const MAX_ROUNDS = 3;
const ENTRY_DATE = '2026-03-15';

interface Reply {
  status: number;
  headers: Headers;
  body: any; // `any` keeps assertions on response bodies short; each check names the shape it reads
}

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
}

/** Runs tasks with at most `limit` in flight, keeping their order in the results. */
async function inParallel<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

/** One from each list in turn while any has some left: [a1, b1, c1, a2, b2, a3, …]. */
function interleave<T>(lists: readonly (readonly T[])[]): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < lists.reduce((n, list) => n + list.length, 0); i++) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}

const windowOf = (ms: number): number => Math.floor(ms / RATE_LIMIT_WINDOW_MS);

const MODES = [
  { name: 'direct connections', pooled: false },
  { name: 'through PgBouncer in transaction mode', pooled: true },
] as const;

describe.skipIf(!POSTGRES_AVAILABLE).each(MODES)('two API processes and two workers on one PostgreSQL, $name', ({ pooled }) => {
  // Only a missing pgbouncer skips the pooled run; everything else is a failure.
  const skip = pooled && !PGBOUNCER_BINARY;
  let t: TestServices;
  let bouncer: Pgbouncer | undefined;
  let receiver: Receiver;
  const apis: { proc: RunningProcess; base: string }[] = [];
  const workers: RunningProcess[] = [];
  const tally: Tally = { requests: 0, byStatus: new Map() };
  let companyId: string;
  let userId: string;
  let writerKey: string;
  let hooks: { created: string; committedA: string; committedB: string };

  beforeAll(async () => {
    if (skip) return;
    t = await createTestServices('postgres');
    const direct = t.database!;
    if (pooled) {
      bouncer = await startPgbouncer({
        serverUrl: direct.url,
        databases: [new URL(direct.url).pathname.slice(1)],
        users: [new URL(direct.url).username, new URL(direct.anonUrl).username],
      });
    }
    // The query connections go through the pooler; LISTEN and migrations never do.
    const dbEnv: Record<string, string> = bouncer
      ? { DATABASE_URL: bouncer.url(direct.url), DATABASE_ANON_URL: bouncer.url(direct.anonUrl), DATABASE_DIRECT_URL: direct.url }
      : { DATABASE_URL: direct.url, DATABASE_ANON_URL: direct.anonUrl };
    const ca = testCaFile();
    const common = { ...dbEnv, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'info', LOG_FORMAT: 'json', WEBHOOK_ALLOWED_PRIVATE_CIDRS: LOOPBACK_CIDRS };

    receiver = await startReceiver();
    const prisma = t.services.database.prisma;
    const tenant = await makeTenant(prisma);
    companyId = tenant.companyId;
    userId = tenant.userId;
    // The writer's own limit is far above the load: only the limited keys meet RATE_LIMIT_PER_MINUTE.
    writerKey = (await makeKey(prisma, userId, { rateLimitPerMinute: 1_000_000 })).key;
    // IP-literal URLs: the workers resolve nothing (the test CA covers IP:127.0.0.1).
    const hook = (eventType: string, path: string) =>
      makeWebhook(t.services, { companyId, url: `https://127.0.0.1:${receiver.port}${path}`, eventType, name: path });
    hooks = {
      created: await hook('journal_entry.created', '/created'),
      committedA: await hook('journal_entry.committed', '/committed-a'),
      committedB: await hook('journal_entry.committed', '/committed-b'),
    };

    for (let i = 0; i < 2; i++) {
      const proc = startEntry('cli/serve.ts', { ...common, PORT: '0', DISPATCHER_TIMER: 'false', RATE_LIMIT_PER_MINUTE: String(LIMIT) });
      apis.push({ proc, base: '' });
    }
    for (let i = 0; i < 2; i++) {
      workers.push(startEntry('cli/worker.ts', { ...common, WEBHOOK_CA_FILE: ca, WORKER_BATCH_SIZE: '10' }));
    }
    for (const api of apis) api.base = `http://127.0.0.1:${(await api.proc.waitFor(/"port":(\d+)/))[1]}/api/v1`;
    for (const worker of workers) await worker.waitFor(/delivery worker started/);

    const year = await send(0, 'POST', '/fiscal-years', writerKey, { start_date: '2026-01-01' });
    expect(year.status, JSON.stringify(year.body)).toBe(201);
  });

  afterAll(async () => {
    await Promise.all([...apis.map((a) => a.proc.stop()), ...workers.map((w) => w.stop())]);
    await receiver?.close();
    await bouncer?.stop();
    await t?.close();
  });

  /** One request to API process `which` (0 or 1); every answer is tallied. */
  async function send(which: number, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    // `/companies` is the list; any other path is under the tenant's company.
    const url = `${apis[which]!.base}${path === '/companies' ? path : `/companies/${companyId}${path}`}`;
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    tally.requests++;
    tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1);
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  }

  const draftBody = (description: string) => ({ date: ENTRY_DATE, description, lines: OFFICE_SUPPLIES });

  /** One entry: drafted on one process, committed on the other. */
  async function bookEntry(round: number, n: number): Promise<number> {
    const draft = await send(n % 2, 'POST', '/journal-entries', writerKey, draftBody(`round ${round} entry ${n}`), { 'idempotency-key': randomUUID() });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const committed = await send((n + 1) % 2, 'POST', `/journal-entries/${draft.body.data.id}/commit`, writerKey);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    return committed.body.data.number as number;
  }

  /** SENDS_PER_KEY identical creates with one Idempotency-Key, to both processes at once. */
  async function contend(round: number, k: number): Promise<Reply[]> {
    const key = `round-${round}-contended-${k}`;
    const body = draftBody(`round ${round} contended ${k}`);
    return Promise.all(Array.from({ length: SENDS_PER_KEY }, (_, i) => send(i % 2, 'POST', '/journal-entries', writerKey, body, { 'idempotency-key': key })));
  }

  interface Round {
    burst: Reply[];
    burstInOneWindow: boolean;
    contended: Reply[][];
    numbers: number[];
  }

  /** The mixed load: the limited key's burst at the same moment as writes, contended keys, reads and an operation. */
  async function mixedRound(round: number): Promise<Round> {
    const limitedKey = (await makeKey(t.services.database.prisma, userId)).key; // RATE_LIMIT_PER_MINUTE applies
    const numbers: number[] = [];
    const contended: Reply[][] = [];
    const writes = Array.from({ length: ENTRIES }, (_, n) => async () => {
      numbers.push(await bookEntry(round, n));
    });
    const contention = Array.from({ length: CONTENDED_KEYS }, (_, k) => async () => {
      contended.push(await contend(round, k));
    });
    const reads = Array.from({ length: READS }, (_, n) => async () => {
      const list = await send(n % 2, 'GET', '/journal-entries?limit=20', writerKey);
      expect(list.status).toBe(200);
    });
    const operation = async () => {
      // A long-running operation, claimed by one of the workers' runners.
      const queued = await send(round % 2, 'POST', `/webhooks/${hooks.created}/recover`, writerKey, { since: '2026-01-01T00:00:00.000Z' });
      expect(queued.status, JSON.stringify(queued.body)).toBe(202);
      await until(
        async () => (await send((round + 1) % 2, 'GET', `/operations/${queued.body.data.id}`, writerKey)).body.data.status === 'succeeded',
        'the operation',
      );
    };
    // Interleaved, so writes, contended keys and reads overlap rather than run in phases.
    const mixed = interleave([writes, reads, contention, [operation]]);
    const started = Date.now();
    const [burst] = await Promise.all([
      Promise.all(Array.from({ length: BURST }, (_, i) => send(i % 2, 'GET', '/companies', limitedKey))),
      inParallel(mixed, CONCURRENCY),
    ]);
    // Every process stamps its requests with this machine's clock, between these two readings.
    const burstInOneWindow = windowOf(started) === windowOf(Date.now());
    return { burst, burstInOneWindow, contended, numbers };
  }

  it.skipIf(skip)(
    'holds rate limits, idempotency and delivery claims across the processes, with no 5xx',
    async () => {
      const prisma = t.services.database.prisma;
      const rounds: Round[] = [];
      while (rounds.length < MAX_ROUNDS) {
        rounds.push(await mixedRound(rounds.length + 1));
        if (rounds.at(-1)!.burstInOneWindow) break;
      }
      const last = rounds.at(-1)!;
      expect(last.burstInOneWindow, `${MAX_ROUNDS} bursts in a row straddled a minute boundary`).toBe(true);

      // Rate limit: exactly LIMIT admitted in total over both processes, the rest 429 RATE_LIMITED.
      expect(last.burst.filter((r) => r.status === 200)).toHaveLength(LIMIT);
      const limited = last.burst.filter((r) => r.status === 429);
      expect(limited).toHaveLength(BURST - LIMIT);
      for (const reply of limited) {
        expect(reply.body.error.code).toBe('RATE_LIMITED');
        expect(reply.headers.get('retry-after')).toBe('60');
      }

      // Idempotency: per key one original 201, duplicates either the replay of it or 409 in progress.
      let replays = 0;
      let inProgress = 0;
      for (const [r, round] of rounds.entries()) {
        expect(round.contended).toHaveLength(CONTENDED_KEYS);
        for (const replies of round.contended) {
          const created = replies.filter((reply) => reply.status === 201);
          const busy = replies.filter((reply) => reply.status === 409);
          expect(created.length + busy.length, JSON.stringify(replies.map((reply) => [reply.status, reply.body]))).toBe(SENDS_PER_KEY);
          expect(created.filter((reply) => reply.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
          expect(new Set(created.map((reply) => reply.body.data.id)).size).toBe(1);
          for (const reply of busy) expect(reply.body.error.code).toBe('IDEMPOTENCY_IN_PROGRESS');
          replays += created.length - 1;
          inProgress += busy.length;
        }
        // Afterwards, the key replays the one stored reply on both processes.
        for (let k = 0; k < CONTENDED_KEYS; k++) {
          const original = round.contended.flat().find((reply) => reply.status === 201 && reply.body.data.description === `round ${r + 1} contended ${k}`)!;
          for (const which of [0, 1]) {
            const again = await send(which, 'POST', '/journal-entries', writerKey, draftBody(`round ${r + 1} contended ${k}`), {
              'idempotency-key': `round-${r + 1}-contended-${k}`,
            });
            expect(again.status).toBe(201);
            expect(again.headers.get('idempotent-replayed')).toBe('true');
            expect(again.body.data).toEqual(original.body.data);
            replays++;
          }
          // One effect: one entry, one journal_entry.created event.
          expect(await prisma.journalEntry.count({ where: { companyId, description: `round ${r + 1} contended ${k}` } })).toBe(1);
        }
        // Commits from both processes took gapless voucher numbers (the counter row is the claim).
        expect(round.numbers).toHaveLength(ENTRIES);
      }
      const numbers = rounds.flatMap((round) => round.numbers).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));

      // LISTEN stays direct: each worker's two sessions (deliveries, operations) are the server's own
      // connections, none of them one the pooler multiplexes; the load did go through the pooler.
      const listening = async () =>
        prisma.$queryRawUnsafe<{ pid: number }[]>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`);
      await until(async () => (await listening()).length === 4, 'four LISTEN sessions');
      let pooledTransactions = 0;
      if (bouncer) {
        const serverPids = new Set((await bouncer.show('SERVERS')).map((row) => Number(row.remote_pid)));
        expect((await listening()).filter((session) => serverPids.has(session.pid))).toEqual([]);
        const stats = (await bouncer.show('STATS')).find((row) => row.database === new URL(t.database!.url).pathname.slice(1));
        pooledTransactions = Number(stats?.total_xact_count);
        expect(pooledTransactions).toBeGreaterThan(tally.requests);
      }

      // Claims: every queued delivery is delivered, each sent exactly once by the two workers together.
      const createdEvents = rounds.length * (ENTRIES + CONTENDED_KEYS);
      const committedEvents = rounds.length * ENTRIES;
      expect(await prisma.event.count({ where: { companyId, type: 'journal_entry.created' } })).toBe(createdEvents);
      expect(await prisma.event.count({ where: { companyId, type: 'journal_entry.committed' } })).toBe(committedEvents);
      const expected = createdEvents + 2 * committedEvents;
      await until(async () => (await prisma.webhookDelivery.count({ where: { companyId, status: 'delivered' } })) === expected, `${expected} deliveries`);
      // Stopped (in-flight sends finish first), nothing more can reach the receiver: the count is final.
      await Promise.all(workers.map((w) => w.stop()));
      expect(await prisma.webhookDelivery.count({ where: { companyId } })).toBe(expected);
      const perDelivery = new Map<string, number>();
      const perEvent = new Map<string, number>();
      for (const request of receiver.requests) {
        const delivery = String(request.headers['x-service-delivery-id']);
        const event = `${request.url} ${String(request.headers['x-service-event-id'])}`;
        perDelivery.set(delivery, (perDelivery.get(delivery) ?? 0) + 1);
        perEvent.set(event, (perEvent.get(event) ?? 0) + 1);
      }
      const duplicates = receiver.requests.length - perDelivery.size;
      expect(perDelivery.size).toBe(expected);
      expect(duplicates).toBe(0);
      expect(perEvent.size).toBe(expected);
      // The database is this file's own: every attempt row is one of these deliveries'.
      expect(await prisma.webhookDeliveryAttempt.count()).toBe(expected);
      // Each worker logs one line per outcome: together they account for every delivery once.
      const deliveredBy = workers.map(
        (w) => (w.stderr() + w.stdout()).split('\n').filter((line) => line.includes('"event":"delivery"') && line.includes('"outcome":"delivered"')).length,
      );
      expect(deliveredBy.reduce((a, b) => a + b, 0)).toBe(expected);

      // No 5xx anywhere in the load.
      const serverErrors = [...tally.byStatus].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
      expect(serverErrors, JSON.stringify([...tally.byStatus])).toBe(0);

      // The figures docs/reliability.md quotes.
      process.stdout.write(
        `scale-out (${pooled ? 'PgBouncer transaction mode' : 'direct'}): rounds ${rounds.length}, requests ${tally.requests}, ` +
          `statuses ${JSON.stringify(Object.fromEntries(tally.byStatus))}, 429s ${limited.length} of a ${BURST}-request burst (limit ${LIMIT}), ` +
          `idempotent replays ${replays}, in-progress 409s ${inProgress}, deliveries ${expected} (worker split ${deliveredBy.join('/')}), ` +
          `duplicates ${duplicates}, 5xx ${serverErrors}${bouncer ? `, transactions through PgBouncer ${pooledTransactions}` : ''}\n`,
      );
    },
    300_000,
  );
});
