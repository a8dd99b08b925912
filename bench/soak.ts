/**
 * `npm run soak`: API load and webhook deliveries together for a bounded time (SOAK_MINUTES,
 * default 10), with the resident memory of the API process and the delivery worker sampled
 * throughout. The claim is "no growth trend": after a warm-up, the least-squares slope of each
 * process's RSS stays under SOAK_MAX_SLOPE_MB_PER_MIN (default 1 MB/min), every request answers
 * without a 5xx, and every delivery the load caused is received once the load stops.
 *
 * Real processes, as deployed: `cli/serve.ts` (delivery loop off) and `cli/worker.ts` on one
 * PostgreSQL database (TEST_DATABASE_URL), an HTTPS receiver in its own process, and autocannon
 * in this one, at a steady rate (SOAK_RATE requests/s) so the run measures memory, not saturation.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { createServices } from '../domain/bootstrap.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { getTestPki, testCaFile } from '../test/helpers/test-ca.ts';
import { makeWebhook } from '../test/helpers/factories.ts';
import { ROOT } from '../test/helpers/process.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { seedBenchTenant } from './http/seed.ts';
import { writeResult } from './http/load.ts';

process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 200);
const MAX_SLOPE_MB_PER_MIN = Number(process.env.SOAK_MAX_SLOPE_MB_PER_MIN ?? 1);
const SAMPLE_EVERY_S = 5;
/** The first fifth of the run (at least a minute, at most half) is warm-up: JIT, pools and caches filling. */
const warmupSeconds = Math.min(Math.max(60, MINUTES * 12), MINUTES * 30);
const WEBHOOKS = 3;
/**
 * Node options for the API and worker processes. By default a bounded heap, as a container sets
 * it: with this machine's 24 GiB, V8's default heap limit is a few GB and it lets garbage pile up
 * (RSS floor 218 → 354 MB in 10 minutes), which says nothing about retention. With the heap
 * bounded the same load held a flat floor. SOAK_NODE_OPTIONS='' runs with Node's defaults.
 */
const CHILD_NODE_OPTIONS = process.env.SOAK_NODE_OPTIONS ?? '--max-old-space-size=160';

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? Number.NaN) / 1024;
};

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** Starts `node --import tsx <entry>` (one process, so its pid is the one doing the work). */
function startEntry(entry: string, env: Record<string, string>): { child: ChildProcess; output: () => string; waitFor(pattern: RegExp): Promise<string> } {
  const child = spawn(process.execPath, [...CHILD_NODE_OPTIONS.split(' ').filter(Boolean), '--import', 'tsx', join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    child,
    output: () => text,
    async waitFor(pattern) {
      for (;;) {
        const match = pattern.exec(text);
        if (match) return match[0];
        if (child.exitCode !== null) throw new Error(`${entry} exited: ${text.slice(-2000)}`);
        await sleep(50);
      }
    },
  };
}

const db = await createPostgresDatabase();
const children: ChildProcess[] = [];
try {
  const pki = getTestPki();
  const receiver = fork(join(ROOT, 'bench', 'receiver-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, BENCH_TLS_KEY: pki.localhost.key, BENCH_TLS_CERT: pki.localhost.cert },
  });
  children.push(receiver);
  const [line] = (await once(receiver.stdout!, 'data')) as [Buffer];
  const receiverPort = (JSON.parse(line.toString()) as { port: number }).port;
  const received = async (): Promise<number> => {
    receiver.send('count');
    const [message] = (await once(receiver, 'message')) as [{ count: number }];
    return message.count;
  };

  const env = {
    DATABASE_URL: db.url,
    DATABASE_ANON_URL: db.anonUrl,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: 'warn',
  };
  // Migrate and seed here: a tenant, and webhooks on company.updated that every PATCH fans out to.
  const services = await createServices(loadConfig(env), { logger: createLogger('warn') });
  const prisma = services.database.prisma;
  const { key, companyId } = await seedBenchTenant(prisma);
  for (let i = 0; i < WEBHOOKS; i++) {
    await makeWebhook(services, { companyId, url: `https://127.0.0.1:${receiverPort}/hook/${i}`, name: `soak ${i}` });
  }
  const countDeliveries = async (status?: string) => prisma.webhookDelivery.count({ ...(status && { where: { status } }) });

  const caFile = testCaFile();
  const api = startEntry('cli/serve.ts', { ...env, PORT: '0', HOST: '127.0.0.1', DISPATCHER_TIMER: 'false', LOG_LEVEL: 'info' });
  const worker = startEntry('cli/worker.ts', { ...env, WEBHOOK_CA_FILE: caFile, LOG_LEVEL: 'info' });
  children.push(api.child, worker.child);
  const port = Number(/"port":(\d+)/.exec(await api.waitFor(/"port":\d+/))![0].split(':')[1]);
  await worker.waitFor(/delivery worker started/);
  const processes = { api: api.child.pid!, worker: worker.child.pid! };

  const company = `${API_PREFIX}/companies/${companyId}`;
  const auth = { authorization: `Bearer ${key}` };
  let renames = 0;
  console.log(
    `soak: ${MINUTES} min at ${RATE} req/s (reads, and PATCHes fanning out to ${WEBHOOKS} webhooks); RSS every ${SAMPLE_EVERY_S} s, warm-up ${warmupSeconds} s` +
      (CHILD_NODE_OPTIONS ? `; processes run with ${CHILD_NODE_OPTIONS}` : ''),
  );

  const samples: { t: number; api: number; worker: number; pending: number }[] = [];
  const started = Date.now();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const pending = (await countDeliveries('pending')) + (await countDeliveries('in_flight'));
      samples.push({ t: (Date.now() - started) / 1000, api: rssMb(processes.api), worker: rssMb(processes.worker), pending });
      const last = samples.at(-1)!;
      process.stderr.write(
        `  ${last.t.toFixed(0).padStart(4)} s  api ${last.api.toFixed(1)} MB  worker ${last.worker.toFixed(1)} MB  deliveries waiting ${pending}\n`,
      );
      await sleep(SAMPLE_EVERY_S * 1000);
    }
  })();

  const load = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 4,
    overallRate: RATE,
    duration: MINUTES * 60,
    requests: [
      { method: 'GET', path: `${API_PREFIX}/companies`, headers: auth },
      { method: 'GET', path: company, headers: auth },
      {
        method: 'PATCH',
        path: company,
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: `Soak ${++renames} AB` }) }),
      },
      { method: 'GET', path: `${company}/webhooks`, headers: auth },
    ],
  });
  sampling = false;
  await sampler;

  // Drain: every delivery the PATCHes caused reaches the receiver.
  const drainDeadline = Date.now() + 120_000;
  while ((await countDeliveries('pending')) + (await countDeliveries('in_flight')) > 0 && Date.now() < drainDeadline) await sleep(500);
  const deliveries = await countDeliveries();
  const delivered = await countDeliveries('delivered');
  const receivedCount = await received();
  await services.database.close();

  const steady = samples.filter((s) => s.t >= warmupSeconds);
  const perProcess = (['api', 'worker'] as const).map((name) => {
    // RSS saws up and down with garbage collection (tens of MB); what is retained shows in the
    // floor, so the trend is fitted to each minute's lowest sample.
    const floors = new Map<number, number>();
    for (const s of steady) {
      const minute = Math.floor(s.t / 60);
      floors.set(minute, Math.min(floors.get(minute) ?? Number.POSITIVE_INFINITY, s[name]));
    }
    const points = [...floors].map(([minute, y]) => ({ x: minute, y }));
    const trend = points.length >= 3 ? slope(points) : Number.NaN;
    return {
      process: name,
      rssMb: {
        first: samples[0]?.[name] ?? Number.NaN,
        afterWarmup: steady[0]?.[name] ?? Number.NaN,
        last: samples.at(-1)?.[name] ?? Number.NaN,
        max: Math.max(...samples.map((s) => s[name])),
      },
      slopeMbPerMinute: trend,
      met: trend < MAX_SLOPE_MB_PER_MIN,
    };
  });
  const fiveXx = Object.entries(load.statusCodeStats ?? {})
    .filter(([code]) => code.startsWith('5'))
    .reduce((sum, [, stat]) => sum + stat.count, 0);
  const result = {
    minutes: MINUTES,
    nodeOptions: CHILD_NODE_OPTIONS,
    rate: RATE,
    requests: load.requests.total,
    non2xx: load.non2xx,
    fiveXx,
    errors: load.errors + load.timeouts,
    deliveries,
    delivered,
    received: receivedCount,
    processes: perProcess,
    samples,
  };
  console.log(
    `\nsoak: ${result.requests} requests (${(result.requests / (MINUTES * 60)).toFixed(0)}/s), non-2xx ${result.non2xx} (5xx ${fiveXx}), errors ${result.errors}`,
  );
  console.log(`  deliveries: ${deliveries} created, ${delivered} delivered, ${receivedCount} received`);
  for (const p of perProcess) {
    console.log(
      `  ${p.process.padEnd(6)} RSS ${p.rssMb.first.toFixed(1)} MB at start, ${p.rssMb.afterWarmup.toFixed(1)} after warm-up, ${p.rssMb.last.toFixed(1)} at the end (max ${p.rssMb.max.toFixed(1)}); ` +
        `trend ${p.slopeMbPerMinute.toFixed(2)} MB/min (goal < ${MAX_SLOPE_MB_PER_MIN}) ${p.met ? 'met' : 'MISSED'}`,
    );
  }
  writeResult('soak', result);
  const ok = perProcess.every((p) => p.met) && fiveXx === 0 && result.errors === 0 && delivered === deliveries && receivedCount >= deliveries;
  if (!ok) {
    console.log('  FAIL');
    process.exitCode = 1;
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await sleep(500);
  await db.drop();
}
