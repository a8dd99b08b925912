/**
 * `npm run bench sie-import` (issue 27), two measurements against real `cli/serve.ts` processes:
 *
 * (a) Memory: a generated SIE 4 file just under MAX_SIE_BYTES (valid, balanced, CP437, written to a
 *     temp dir) imported by a server on PostgreSQL (BENCH_SIE_ENGINE=pglite for the embedded
 *     database: far slower). The server's RSS is read from /proc every 50 ms. Growth is counted from
 *     after the upload was accepted (202) to the peak while the import runs; the total from before
 *     the upload is printed too (the upload and the stored input are issue 28's). Goal: < 150 MB.
 * (b) Fairness: while the largest file in ../shared/sie-samples imports on PGlite, GET
 *     /api/v1/health and GET …/accounts are each asked in a loop (one at a time); their p99 per
 *     round, over BENCH_SIE_ROUNDS (default 3) fresh servers. Goal: p99 < 200 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../domain/bootstrap.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { addDays } from '../domain/ledger/calendar.ts';
import { encodeSie, sieAmount, sieDate, sieRecord, sieText } from '../domain/sie/format.ts';
import { MAX_SIE_BYTES } from '../domain/sie/import.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { listeningPort } from './http/listening-port.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const SAMPLES = join(ROOT, '../shared/sie-samples');
const GOAL_GROWTH_MB = 150;
const GOAL_P99_MS = 200;
const ROUNDS = Number(process.env.BENCH_SIE_ROUNDS ?? 3);
const ENGINE = process.env.BENCH_SIE_ENGINE === 'pglite' ? 'pglite' : 'postgres';
const MB = 1000 * 1000;

const rssOf = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
const quantile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)] ?? Number.NaN;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A valid SIE 4 file of about `bytes` (never more): vouchers of two rows dated through 2026, each
 * row with a long text (what the import keeps per line: up to 500 characters), so 50 MiB is about
 * 50,000 vouchers and 100,000 lines rather than half a million.
 */
function generateSie(path: string, bytes: number): { vouchers: number; bytes: number } {
  const head = [
    sieRecord('FLAGGA', '0'),
    sieRecord('FORMAT', 'PC8'),
    sieRecord('SIETYP', '4'),
    sieRecord('PROGRAM', sieText('bench/sie-import.ts'), '1'),
    sieRecord('FNAMN', sieText('Bänkmärkt AB')),
    sieRecord('RAR', '0', '20260101', '20261231'),
    sieRecord('KONTO', '1930', sieText('Företagskonto')),
    sieRecord('KONTO', '3041', sieText('Försäljning tjänst')),
  ].join('');
  const filler = 'Lång radtext för att göra filen stor utan fler verifikationer; '.repeat(8).slice(0, 480);
  const parts: Buffer[] = [Buffer.from(encodeSie(head))];
  let size = parts[0]!.length;
  let vouchers = 0;
  for (;;) {
    const index = vouchers + 1;
    const amount = 10_000 + ((index * 7_919) % 90_000);
    const voucher = Buffer.from(
      encodeSie(
        sieRecord('VER', 'A', String(index), sieDate(addDays('2026-01-01', index % 365)), sieText(`Verifikation ${index}`)) +
          '{\r\n' +
          sieRecord('TRANS', '1930', '{}', sieAmount(amount), '""', sieText(`${index} ${filler}`)) +
          sieRecord('TRANS', '3041', '{}', sieAmount(-amount), '""', sieText(`${index} ${filler}`)) +
          '}\r\n',
      ),
    );
    if (size + voucher.length > bytes) break;
    parts.push(voucher);
    size += voucher.length;
    vouchers += 1;
  }
  writeFileSync(path, Buffer.concat(parts));
  return { vouchers, bytes: size };
}

interface Server {
  child: ChildProcess;
  port: number;
  output: () => string;
  stop: () => Promise<void>;
}

async function startServer(env: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'bench-sie-'))): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/serve.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir, PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { port, output } = await listeningPort(child);
  return {
    child,
    port,
    output,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * An embedded server whose data directory already holds a tenant (a company without fiscal years,
 * as the sample tests import into; the demo company's current year would refuse a sample's 2011).
 */
async function embeddedServer(): Promise<{ server: Server; tenant: { key: string; companyId: string } }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-sie-'));
  const services = await createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }), { logger: createLogger('warn') });
  const tenant = await makeTenant(services.database.prisma);
  await services.database.close();
  return { server: await startServer({}, dataDir), tenant };
}

async function upload(port: number, tenant: { key: string; companyId: string }, bytes: Buffer, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'text/plain' }), name);
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/companies/${tenant.companyId}/sie-imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.key}` },
    body: form,
  });
  const body = (await response.json()) as { data?: { id: string } };
  if (response.status !== 202 || !body.data) throw new Error(`upload: ${response.status} ${JSON.stringify(body)}`);
  return body.data.id;
}

async function operation(port: number, tenant: { key: string; companyId: string }, id: string): Promise<{ status: string; progress: number; error?: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/companies/${tenant.companyId}/operations/${id}`, {
    headers: { authorization: `Bearer ${tenant.key}` },
  });
  return ((await response.json()) as { data: { status: string; progress: number; error?: unknown } }).data;
}

const FINAL = ['succeeded', 'failed', 'cancelled'];

async function memory(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sie-file-'));
  const path = join(dir, 'large.se');
  const file = generateSie(path, MAX_SIE_BYTES - 64 * 1024);
  let server: Server;
  let tenant: { key: string; companyId: string };
  let drop = async () => {};
  if (ENGINE === 'postgres') {
    const db = await createPostgresDatabase();
    drop = db.drop;
    const env = { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
    const services = await createServices(loadConfig({ ...env, LOG_LEVEL: 'warn' }), { logger: createLogger('warn') });
    tenant = await makeTenant(services.database.prisma);
    await services.database.close();
    server = await startServer(env);
  } else ({ server, tenant } = await embeddedServer());
  try {
    await sleep(2_000); // start-up garbage settles
    const pid = server.child.pid!;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
    const started = Date.now();
    const id = await upload(server.port, tenant, readFileSync(path), 'large.se');
    const accepted = rssOf(pid);
    let peakAfter = accepted;
    clearInterval(sampler);
    const importSampler = setInterval(() => (peakAfter = Math.max(peakAfter, rssOf(pid))), 50);
    let state = await operation(server.port, tenant, id);
    while (!FINAL.includes(state.status)) {
      await sleep(1_000);
      state = await operation(server.port, tenant, id);
    }
    clearInterval(importSampler);
    const seconds = (Date.now() - started) / 1000;
    const growth = (peakAfter - accepted) / MB;
    const total = (Math.max(peak, peakAfter) - before) / MB;
    const met = growth < GOAL_GROWTH_MB && state.status === 'succeeded';
    console.log(
      `\nsie-import memory (${ENGINE}): ${(file.bytes / 1024 / 1024).toFixed(1)} MiB, ${file.vouchers.toLocaleString('en')} vouchers, ${state.status} in ${seconds.toFixed(0)} s; ` +
        `server RSS ${(before / MB).toFixed(0)} MB before the upload, ${(accepted / MB).toFixed(0)} MB once accepted, peak ${(peakAfter / MB).toFixed(0)} MB while importing: ` +
        `growth +${growth.toFixed(0)} MB from acceptance (goal < ${GOAL_GROWTH_MB} MB: ${met ? 'met' : 'MISSED'}); total +${total.toFixed(0)} MB from before the upload (upload and stored input included)`,
    );
    if (state.status !== 'succeeded') console.log(`  error: ${JSON.stringify(state.error)}`);
    return met;
  } finally {
    await server.stop();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Asks `url` again as soon as it answers, until `done`; the latencies in ms (a non-200 throws). */
async function askInLoop(url: string, key: string | null, done: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!done()) {
    const start = performance.now();
    const response = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    latencies.push(performance.now() - start);
  }
  return latencies;
}

async function fairness(): Promise<boolean> {
  const sample = readdirSync(SAMPLES)
    .filter((name) => name.endsWith('.se'))
    .map((name) => ({ name, size: statSync(join(SAMPLES, name)).size }))
    .sort((a, b) => b.size - a.size)[0]!;
  const bytes = readFileSync(join(SAMPLES, sample.name));
  const rounds: { health: number[]; read: number[]; seconds: number; status: string }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const { server, tenant } = await embeddedServer();
    try {
      await sleep(1_000);
      const base = `http://127.0.0.1:${server.port}/api/v1`;
      let finished = false;
      const started = Date.now();
      const id = await upload(server.port, tenant, bytes, sample.name);
      const [health, read, status] = await Promise.all([
        askInLoop(`${base}/health`, null, () => finished),
        askInLoop(`${base}/companies/${tenant.companyId}/accounts?limit=50`, tenant.key, () => finished),
        (async () => {
          let state = await operation(server.port, tenant, id);
          while (!FINAL.includes(state.status)) {
            await sleep(250);
            state = await operation(server.port, tenant, id);
            if (process.env.BENCH_SIE_DEBUG) console.error(JSON.stringify(state).slice(0, 200));
          }
          finished = true;
          if (state.status !== 'succeeded') console.error(`  the import ${state.status}: ${JSON.stringify(state.error)}`);
          return state.status;
        })(),
      ]);
      rounds.push({ health, read, seconds: (Date.now() - started) / 1000, status });
    } finally {
      await server.stop();
    }
  }
  const p99s = (pick: (round: (typeof rounds)[number]) => number[]) => rounds.map((round) => quantile(pick(round), 0.99));
  const health = p99s((round) => round.health);
  const read = p99s((round) => round.read);
  const worst = Math.max(...health, ...read);
  const met = worst < GOAL_P99_MS && rounds.every((round) => round.status === 'succeeded');
  const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)} ms`;
  console.log(
    `\nsie-import fairness (PGlite): ${sample.name} (${(sample.size / 1024).toFixed(0)} KiB) imported ${ROUNDS}× (${rounds.map((r) => `${r.status} ${r.seconds.toFixed(1)} s`).join(', ')}); ` +
      `answered during it: health ${rounds.map((r) => r.health.length).join('/')}, accounts ${rounds.map((r) => r.read.length).join('/')} requests; ` +
      `p99 health ${spread(health)}, p99 accounts ${spread(read)} over the rounds (medians ${rounds.map((r) => quantile(r.health, 0.5).toFixed(0)).join('/')} and ${rounds.map((r) => quantile(r.read, 0.5).toFixed(0)).join('/')} ms); ` +
      `goal p99 < ${GOAL_P99_MS} ms: ${met ? 'met' : 'MISSED'}`,
  );
  return met;
}

const only = process.env.BENCH_SIE_PART;
let ok = true;
if (!only || only === 'fairness') ok = (await fairness()) && ok;
if (!only || only === 'memory') ok = (await memory()) && ok;
if (!ok) process.exitCode = 1;
