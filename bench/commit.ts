/**
 * `npm run bench commit`: journal entry commits per second through the full app
 * (POST …/journal-entries/{id}/commit) with fan-out to 3 webhooks subscribed to
 * journal_entry.committed, beside a raw-`pg` handler writing the same rows in one transaction
 * (targets.ts, rawCommit: what it leaves out is listed there). No dispatcher runs, so every
 * delivery stays pending: the cost measured is the commit transaction with its event and its 3
 * delivery rows. Every request commits a different draft, seeded beforehand in SQL.
 */
import pg from 'pg';
import { DURATION_S, pairedRounds, print, report, ROUNDS, WARMUP_S, writeResult, type LoadSpec, type Server } from './http/load.ts';
import { seedDrafts, seedFiscalYear, seedWebhooks } from './http/seed.ts';
import { openBenchSession } from './http/session.ts';
import { commitPath } from './http/targets.ts';

const WEBHOOKS = 3;
const EVENT = 'journal_entry.committed';
/**
 * Commits per second a target could reach here at most (BENCH_COMMIT_RATE): it sizes the drafts
 * seeded per target, for the warm-up and every round, with a margin. A target that commits them
 * all stops the benchmark rather than reuse one (a second commit of an entry is a 409).
 */
const EXPECTED_RATE = Number(process.env.BENCH_COMMIT_RATE ?? 1000);
const MARGIN = 1.5;
const DRAFTS_PER_TARGET = Math.ceil(EXPECTED_RATE * (WARMUP_S + DURATION_S * ROUNDS) * MARGIN);
const NO_SUCH_ENTRY = '00000000-0000-4000-8000-000000000000';

/** Hands each request the next unused draft; once they run out, a path that can only fail. */
class Drafts {
  private next = 0;
  private exhausted = false;

  constructor(
    private readonly target: string,
    private readonly companyId: string,
    private readonly ids: readonly string[],
  ) {}

  path = (): string => {
    const id = this.ids[this.next];
    if (id === undefined) {
      this.exhausted = true;
      return commitPath(this.companyId, NO_SUCH_ENTRY);
    }
    this.next++;
    return commitPath(this.companyId, id);
  };

  check = (): void => {
    if (this.exhausted) {
      throw new Error(
        `${this.target}: all ${this.ids.length} drafts were committed before the run ended; ` +
          `raise BENCH_COMMIT_RATE (now ${EXPECTED_RATE}/s) above the rate it reached`,
      );
    }
  };

  get used(): number {
    return this.next;
  }
}

const bench = await openBenchSession();
try {
  const { key, companyId } = bench;
  await seedFiscalYear(bench.app, key, companyId);
  await seedWebhooks(bench.app, key, companyId, EVENT, WEBHOOKS);
  const started = performance.now();
  const db = bench.services.database.prisma;
  const appDrafts = await seedDrafts(db, companyId, DRAFTS_PER_TARGET, 'bench app draft');
  const rawDrafts = await seedDrafts(db, companyId, DRAFTS_PER_TARGET, 'bench raw draft');
  // A clean start: statistics for the grown tables and no autovacuum catching up mid-round.
  await db.$executeRawUnsafe('VACUUM (ANALYZE) journal_entries, journal_lines');
  console.log(
    `  seeded ${DRAFTS_PER_TARGET.toLocaleString('en')} drafts per target (${EXPECTED_RATE}/s × ${WARMUP_S + DURATION_S * ROUNDS} s × ${MARGIN}) ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await bench.ready();

  const [rawPg, appPg] = [await bench.start('raw-pg'), await bench.start('app-pg')] as [Server, Server];
  const drafts = { raw: new Drafts('raw pg commit', companyId, rawDrafts), app: new Drafts('app commit, PostgreSQL', companyId, appDrafts) };
  const commit = (server: Server, name: string, pool: Drafts): LoadSpec => ({
    name,
    server,
    url: `http://127.0.0.1:${server.port}/`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    path: pool.path,
    afterRun: pool.check,
    tolerateNon2xx: true,
  });
  const samples = await pairedRounds([commit(rawPg, 'raw pg commit', drafts.raw), commit(appPg, 'app commit, PostgreSQL', drafts.app)]);
  const result = report(samples, [{ name: 'app ÷ raw pg, commit', of: 'app commit, PostgreSQL', over: 'raw pg commit', goal: 0.8 }]);
  print(`Commit: POST a journal entry's commit, fan-out to ${WEBHOOKS} webhooks (deliveries left pending)`, result);

  // Both targets really wrote what is measured: every commit an event with its 3 pending deliveries.
  const client = new pg.Client({ connectionString: bench.databaseUrl });
  await client.connect();
  try {
    const {
      rows: [written],
    } = await client.query<{ committed: number; events: number; deliveries: number; pending: number }>(
      `SELECT (SELECT count(*)::int FROM journal_entries WHERE company_id = $1 AND status = 'committed') AS committed,
              (SELECT count(*)::int FROM events WHERE company_id = $1 AND type = $2) AS events,
              (SELECT count(*)::int FROM webhook_deliveries WHERE company_id = $1 AND event_type = $2) AS deliveries,
              (SELECT count(*)::int FROM webhook_deliveries WHERE company_id = $1 AND event_type = $2 AND status = 'pending') AS pending`,
      [companyId, EVENT],
    );
    const { committed, events, deliveries, pending } = written!;
    console.log(
      `  written: ${committed} entries committed (${drafts.raw.used} + ${drafts.app.used} drafts sent), ${events} ${EVENT} events, ` +
        `${deliveries} deliveries (${pending} pending)`,
    );
    if (events !== committed || deliveries !== WEBHOOKS * events || pending !== deliveries) {
      throw new Error(`expected one event and ${WEBHOOKS} pending deliveries per committed entry`);
    }
  } finally {
    await client.end();
  }
  writeResult('commit', { ...result, draftsPerTarget: DRAFTS_PER_TARGET, webhooks: WEBHOOKS });
  const refused = result.targets.filter((t) => t.non2xx > 0);
  if (refused.length > 0) console.error(`  non-2xx answers (not counted as commits): ${refused.map((t) => `${t.name} ${t.non2xx}`).join(', ')}`);
  if (refused.length > 0 || result.ratios.some((r) => r.met === false)) process.exitCode = 1;
} finally {
  await bench.close();
}
