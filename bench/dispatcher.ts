/**
 * Dispatcher throughput against a baseline loop measured in the same run (DESIGN.md §12):
 * baseline = raw `pg` SKIP LOCKED claim of 50 + sign + undici.request POST + one batched update.
 * The claim on its own is bench/claim.ts.
 */
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { Agent, request } from 'undici';
import { createServices } from '../domain/bootstrap.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { signPayload } from '../dispatcher/sign.ts';
import { processBatch } from '../dispatcher/tick.ts';
import { DEFAULT_LANES, startWorker } from '../dispatcher/worker.ts';
import { createSender } from '../dispatcher/send.ts';
import { getTestPki } from '../test/helpers/test-ca.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5000);
const BATCH = 50;

interface Result {
  name: string;
  perSecond: number;
}

/** Pins this process to CPU 0 and the receiver to CPU 1 when taskset exists: unpinned runs swing ±25 %. */
function pin(pid: number, cpu: number): void {
  try {
    execFileSync('taskset', ['-a', '-pc', String(cpu), String(pid)], { stdio: 'ignore' });
  } catch {
    // No taskset: run unpinned (noisier, still a same-run ratio).
  }
}

async function main(): Promise<void> {
  const db = await createPostgresDatabase();
  pin(process.pid, 0);
  const receiver = fork(new URL('./receiver-process.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_TLS_KEY: getTestPki().localhost.key, BENCH_TLS_CERT: getTestPki().localhost.cert },
  });
  const [line] = (await once(receiver.stdout!, 'data')) as [Buffer];
  const { port } = JSON.parse(line.toString()) as { port: number };
  pin(receiver.pid!, 1);
  const url = `https://127.0.0.1:${port}/hook`;
  const config = loadConfig({
    DATABASE_URL: db.url,
    DATABASE_ANON_URL: db.anonUrl,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: 'warn',
  });
  const services = await createServices(config, { logger: createLogger('warn') });
  const prisma = services.database.prisma;
  try {
    const company = await prisma.company.create({ data: { name: 'Bench AB', orgNumber: '556000-0000', entityType: 'aktiebolag' } });
    const secret = 'b'.repeat(64);
    const hook = await prisma.webhook.create({
      data: {
        companyId: company.id,
        eventType: 'company.updated',
        webhookUrl: url,
        name: 'bench',
        secretEncrypted: services.secretBox.encrypt(secret),
        apiVersionPinned: '2026-11-01',
      },
    });
    const seed = (count: number) =>
      prisma.$executeRawUnsafe(
        `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload)
         SELECT $1::uuid, $2::uuid, 'company.updated',
                jsonb_build_object('id', gen_random_uuid(), 'type', 'company.updated', 'data', jsonb_build_object('object', jsonb_build_object('n', g, 'name', repeat('x', 200))))
           FROM generate_series(1, ${count}) g`,
        hook.id,
        company.id,
      );

    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    const agent = new Agent({ connect: { ca: getTestPki().caCert } });
    const sender = createSender({ urlPolicy: services.webhookUrlPolicy, extraCaCerts: [getTestPki().caCert] });

    /** Baseline: the raw loop (claim 50 with SKIP LOCKED, sign, POST, one batched update). */
    const baselineRound = async (): Promise<number> => {
      const { rows } = await pool.query(
        `UPDATE webhook_deliveries d SET status = 'in_flight' FROM (
           SELECT id FROM webhook_deliveries WHERE status IN ('pending','failed') AND webhook_id IS NOT NULL AND next_attempt_at <= now()
           ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED) p
         WHERE d.id = p.id RETURNING d.id, d.payload`,
        [BATCH],
      );
      if (rows.length === 0) return 0;
      const statuses = await Promise.all(
        rows.map(async (row: { id: string; payload: unknown }) => {
          const body = JSON.stringify(row.payload);
          const response = await request(url, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json', 'x-service-signature': signPayload(secret, body, Math.floor(Date.now() / 1000)) },
            body,
          });
          await response.body.dump();
          return response.statusCode;
        }),
      );
      await pool.query(
        `UPDATE webhook_deliveries d SET status = o.status, attempts = d.attempts + 1, response_status = o.code
           FROM unnest($1::uuid[], $2::text[], $3::int[]) AS o(id, status, code) WHERE d.id = o.id`,
        [rows.map((r: { id: string }) => r.id), statuses.map((s) => (s < 300 ? 'delivered' : 'failed')), statuses],
      );
      return rows.length;
    };
    /** Ours, one claimed batch of 50 at a time (claim, send, record: no overlap). */
    const dispatcherRound = async (): Promise<number> => (await processBatch(services, sender, BATCH)).picked;
    /** Ours as deployed: the worker loop at its defaults (DEFAULT_LANES lanes, WORKER_BATCH_SIZE per claim). */
    const measureWorker = async (count: number, lanes?: number): Promise<number> => {
      await seed(count);
      const start = performance.now();
      const worker = startWorker(services, { sender, idlePollMs: 5, ...(lanes && { lanes, batchSize: BATCH }) });
      while (worker.totals.picked < count) await new Promise((resolve) => setTimeout(resolve, 5));
      const seconds = (performance.now() - start) / 1000;
      await worker.stop();
      return worker.totals.delivered / seconds;
    };

    const measure = async (round: () => Promise<number>, count: number): Promise<number> => {
      await seed(count);
      const start = performance.now();
      let done = 0;
      for (let n = await round(); n > 0; n = await round()) done += n;
      return done / ((performance.now() - start) / 1000);
    };
    // Warm both (TLS sessions, JIT, caches), then alternate runs and keep each one's best.
    await measure(baselineRound, 500);
    await measure(dispatcherRound, 500);
    await measureWorker(500);
    const runs = { baseline: [] as number[], batch: [] as number[], worker: [] as number[], oneLane: [] as number[] };
    for (let i = 0; i < 2; i++) {
      runs.baseline.push(await measure(baselineRound, DELIVERIES));
      runs.batch.push(await measure(dispatcherRound, DELIVERIES));
      runs.oneLane.push(await measureWorker(DELIVERIES, 1));
      runs.worker.push(await measureWorker(DELIVERIES));
    }
    const baseline: Result = { name: 'baseline raw loop', perSecond: Math.max(...runs.baseline) };
    const batch: Result = { name: 'processBatch of 50, in a loop', perSecond: Math.max(...runs.batch) };
    const oneLane: Result = { name: 'worker, 1 lane of 50', perSecond: Math.max(...runs.oneLane) };
    const ours: Result = { name: `worker (defaults: ${DEFAULT_LANES} lanes of ${config.WORKER_BATCH_SIZE})`, perSecond: Math.max(...runs.worker) };
    await agent.close();
    await pool.end();
    await sender.close();

    console.log(
      `\nDispatcher throughput, ${DELIVERIES} deliveries, batches of ${BATCH}, HTTPS receiver in another process, best of 2 alternating runs after a warm-up:`,
    );
    for (const r of [baseline, batch, oneLane, ours]) console.log(`  ${r.name.padEnd(36)} ${r.perSecond.toFixed(0).padStart(7)} deliveries/s`);
    console.log(`  ratio worker/baseline: ${(ours.perSecond / baseline.perSecond).toFixed(2)} (target >= 0.80)`);
    console.log(
      `  ratio 1-lane worker/baseline: ${(oneLane.perSecond / baseline.perSecond).toFixed(2)}; batch-by-batch/baseline: ${(batch.perSecond / baseline.perSecond).toFixed(2)} (same sequential shape as the baseline, plus an attempt log, URL checks and kept response bodies)`,
    );
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    receiver.kill();
    await services.database.close();
    await db.drop();
  }
}

await main();
