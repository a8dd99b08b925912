/**
 * The claim of 50 (claim_webhook_deliveries), timed inside the database, in three tables:
 *   ~10k terminal rows, ~1M terminal rows (history must not slow it: partial index), and
 *   ~1M terminal rows plus a backlog of 100,000 due rows of one company and 10 of another
 *   (the fair claim must still be one cheap statement).
 * Baseline, measured in the same run on the same tables: the claim as it was before the fair
 * claim (one ordered scan of a (next_attempt_at) partial index, FOR UPDATE SKIP LOCKED), so the
 * ratio holds on a busy shared machine where absolute times swing.
 * The databases and the two claims are measured alternately so drift hits them alike.
 * Run alone with `npm run bench -- claim`.
 */
import { createServices } from '../domain/bootstrap.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';

const BATCH = 50;
const ROUNDS = 8;
const CYCLES_PER_ROUND = 25;
/** The first claims of a round warm caches and are not counted. */
const WARM_UP_CYCLES = 5;

// The claim before issue 18 (prisma/migrations/20261121020000_dispatcher), with its index. Both
// carry `attempts >= 0` (always true: a CHECK) only so the fair claim's plans cannot use this
// index: each claim must run on its own index, as it does in its own schema.
const BASELINE_CLAIM = `
  CREATE INDEX bench_baseline_claim ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'failed') AND webhook_id IS NOT NULL AND attempts >= 0;
  CREATE FUNCTION bench_baseline_claim(batch integer, as_of timestamptz DEFAULT now())
  RETURNS TABLE (delivery_id uuid, delivery_company_id uuid, webhook_id uuid, webhook_company_id uuid, webhook_url text,
                 secret_encrypted text, webhook_disabled boolean, livemode boolean, event_id uuid, event_type text,
                 payload jsonb, attempts integer) LANGUAGE sql AS $$
    WITH picked AS (
      SELECT d.id FROM webhook_deliveries d
       WHERE d.status IN ('pending', 'failed') AND d.webhook_id IS NOT NULL AND d.attempts >= 0 AND d.next_attempt_at <= as_of
       ORDER BY d.next_attempt_at
       LIMIT CASE WHEN assert_claim_batch(batch) THEN batch END
       FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d SET status = 'in_flight' FROM picked WHERE d.id = picked.id
      RETURNING d.id, d.company_id, d.webhook_id, d.event_id, d.event_type, d.payload, d.attempts, d.next_attempt_at
    )
    SELECT c.id, c.company_id, c.webhook_id, w.company_id, w.webhook_url, w.secret_encrypted,
           w.disabled_at IS NOT NULL, co.livemode, c.event_id, c.event_type, c.payload, c.attempts
      FROM claimed c JOIN webhooks w ON w.id = c.webhook_id LEFT JOIN companies co ON co.id = w.company_id
     ORDER BY c.next_attempt_at
  $$`;

// Each cycle: 50 new due rows, one timed claim of 50, the claimed rows marked delivered.
const cycleFunction = (name: string, claim: string) => `
  CREATE OR REPLACE FUNCTION ${name}(hook uuid, company uuid, cycles int) RETURNS double precision[]
  LANGUAGE plpgsql AS $fn$
  DECLARE t0 timestamptz; samples double precision[] := '{}'; ids uuid[];
  BEGIN
    FOR i IN 1..cycles LOOP
      INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload)
        SELECT hook, company, 'company.updated', '{}'::jsonb FROM generate_series(1, ${BATCH});
      t0 := clock_timestamp();
      SELECT array_agg(delivery_id) INTO ids FROM ${claim}(${BATCH});
      samples := samples || extract(epoch FROM clock_timestamp() - t0) * 1000;
      UPDATE webhook_deliveries SET status = 'delivered' WHERE id = ANY(ids);
    END LOOP;
    RETURN samples;
  END $fn$`;

const CLAIMS = [
  { name: 'fair claim', fn: 'claim_webhook_deliveries', cycle: 'bench_claim_cycle', sql: cycleFunction('bench_claim_cycle', 'claim_webhook_deliveries') },
  { name: 'baseline', fn: 'bench_baseline_claim', cycle: 'bench_baseline_cycle', sql: cycleFunction('bench_baseline_cycle', 'bench_baseline_claim') },
] as const;

/**
 * Shared buffers one claim touches (EXPLAIN ANALYZE BUFFERS of the function's body, rolled back):
 * a count, so unlike the times it does not move with other load on the machine.
 */
async function buffersPerClaim(prisma: Awaited<ReturnType<typeof createServices>>['database']['prisma'], fn: string): Promise<number> {
  const [row] = await prisma.$queryRawUnsafe<{ src: string }[]>('SELECT prosrc AS src FROM pg_proc WHERE proname = $1', fn);
  // A PL/pgSQL body's statement is its RETURN QUERY; a SQL function's body is the statement.
  const query = /RETURN QUERY\s+([\s\S]*?);\s*END\s*$/.exec(row!.src)?.[1] ?? row!.src;
  const statement = query.replace(/\bbatch\b/g, '$1').replace(/\bas_of\b/g, '$2');
  let blocks = 0;
  await prisma
    .$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`PREPARE bench_buffers(integer, timestamptz) AS ${statement}`);
      const [plan] = await tx.$queryRawUnsafe<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }[]>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE bench_buffers(${BATCH}, now())`,
      );
      const top = plan!['QUERY PLAN'][0].Plan;
      blocks = (top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0);
      await tx.$executeRawUnsafe('DEALLOCATE bench_buffers');
      throw new Error('roll back the claim');
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.message === 'roll back the claim')) throw error;
    });
  return blocks;
}

interface Setup {
  name: string;
  terminalRows: number;
  /** Due rows per extra company, inserted once before measuring. */
  backlog: number[];
}

const SETUPS: Setup[] = [
  { name: '~10k terminal', terminalRows: 10_000, backlog: [] },
  { name: '~1M terminal', terminalRows: 1_000_000, backlog: [] },
  { name: '~1M terminal + due 100k (A) / 10 (B)', terminalRows: 1_000_000, backlog: [100_000, 10] },
];

async function prepare(setup: Setup) {
  const db = await createPostgresDatabase();
  const services = await createServices(
    loadConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn' }),
    { logger: createLogger('warn') },
  );
  const prisma = services.database.prisma;
  const hookFor = async (name: string) => {
    const company = await prisma.company.create({ data: { name, orgNumber: '556000-0000', entityType: 'aktiebolag' } });
    const hook = await prisma.webhook.create({
      data: {
        companyId: company.id,
        eventType: 'company.updated',
        webhookUrl: 'https://hooks.example.com/x',
        name: 'bench',
        secretEncrypted: 'x',
        apiVersionPinned: '2026-11-01',
      },
    });
    return { company: company.id, hook: hook.id };
  };
  const main = await hookFor('Bench AB');
  for (const statement of BASELINE_CLAIM.split(/;\n(?= {2}CREATE FUNCTION)/)) await prisma.$executeRawUnsafe(statement);
  for (const claim of CLAIMS) await prisma.$executeRawUnsafe(claim.sql);
  await prisma.$executeRawUnsafe(
    `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, attempts)
     SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb, 'delivered', 1 FROM generate_series(1, ${setup.terminalRows})`,
    main.hook,
    main.company,
  );
  for (const [index, count] of setup.backlog.entries()) {
    const other = await hookFor(`Backlog ${index}`);
    // Due an hour ago, so the backlog is older than every row the cycles add.
    await prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, next_attempt_at)
       SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb, now() - interval '1 hour' FROM generate_series(1, ${count})`,
      other.hook,
      other.company,
    );
  }
  await prisma.$executeRawUnsafe('VACUUM ANALYZE webhook_deliveries');
  return { setup, db, services, ...main };
}

/** The q-quantile (0.5: the median). The 10th percentile shows the cost with the least interference from other load. */
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)]!;

export async function measureClaim(): Promise<void> {
  const prepared = [];
  try {
    for (const setup of SETUPS) prepared.push(await prepare(setup));
    const key = (setup: Setup, claim: (typeof CLAIMS)[number]) => `${setup.name}|${claim.name}`;
    const samples = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const p of prepared) {
        // Alternate which claim goes first, so neither always runs on the warmer cache.
        for (const claim of round % 2 === 0 ? CLAIMS : [...CLAIMS].reverse()) {
          const [row] = await p.services.database.prisma.$queryRawUnsafe<{ s: number[] }[]>(
            `SELECT ${claim.cycle}($1::uuid, $2::uuid, ${CYCLES_PER_ROUND}) AS s`,
            p.hook,
            p.company,
          );
          const list = samples.get(key(p.setup, claim)) ?? [];
          list.push(...row!.s.slice(WARM_UP_CYCLES).map(Number));
          samples.set(key(p.setup, claim), list);
        }
      }
    }
    const at = (setup: Setup, claim: (typeof CLAIMS)[number], q: number) => quantile(samples.get(key(setup, claim))!, q);
    const count = samples.get(key(SETUPS[0]!, CLAIMS[0]))!.length;
    console.log(
      `\nClaim of ${BATCH}, timed in the database (${count} claims per table and claim, alternating databases and claims; median and 10th percentile):`,
    );
    console.log(`  ${'table'.padEnd(40)} ${'fair claim'.padStart(19)} ${'baseline'.padStart(19)}  ratio (median, p10)`);
    const ms = (value: number) => value.toFixed(3).padStart(7);
    for (const s of SETUPS) {
      const fair = [at(s, CLAIMS[0], 0.5), at(s, CLAIMS[0], 0.1)] as const;
      const baseline = [at(s, CLAIMS[1], 0.5), at(s, CLAIMS[1], 0.1)] as const;
      console.log(
        `  ${s.name.padEnd(40)} ${ms(fair[0])} / ${ms(fair[1])} ms ${ms(baseline[0])} / ${ms(baseline[1])} ms  ` +
          `${(fair[0] / baseline[0]).toFixed(2)}, ${(fair[1] / baseline[1]).toFixed(2)}`,
      );
    }
    console.log(
      `  fair claim/baseline: target <= 1.30; fair claim 1M/10k (median): ${(at(SETUPS[1]!, CLAIMS[0], 0.5) / at(SETUPS[0]!, CLAIMS[0], 0.5)).toFixed(2)} (target <= 1.30)`,
    );
    console.log('  shared buffers per claim (independent of machine load):');
    for (const p of prepared) {
      await p.services.database.prisma.$executeRawUnsafe(
        `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload) SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb FROM generate_series(1, ${BATCH})`,
        p.hook,
        p.company,
      );
      const [fair, baseline] = [
        await buffersPerClaim(p.services.database.prisma, CLAIMS[0].fn),
        await buffersPerClaim(p.services.database.prisma, CLAIMS[1].fn),
      ];
      console.log(`  ${p.setup.name.padEnd(40)} ${String(fair).padStart(7)}    ${String(baseline).padStart(7)}     ${(fair / baseline).toFixed(2)}`);
    }
  } finally {
    for (const p of prepared) {
      await p.services.database.close();
      await p.db.drop();
    }
  }
}
