/**
 * `npm run bench sie-memory` (issue 30): the SIE export of a 1M-line year from a server process
 * started as `npm start` starts it (scripts/run-built.mjs serve: compiled, Node's default heap, no
 * --max-old-space-size), on PostgreSQL. Its resident set is read from /proc before the request,
 * every 20 ms while the file is streamed to the end by this process, and the peak growth is
 * compared with the goal. A fresh server each round (the first export a process makes), ROUNDS
 * rounds, each figure with its spread. report.ts measures the same export in-process with a
 * bounded heap; this one measures what a user's server does. `BENCH_REPORT_LINES` sets the size.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateBooks, openBooksBench } from './books.ts';
import { ROUNDS, writeResult } from './http/load.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const LINES = Number(process.env.BENCH_REPORT_LINES ?? 1_000_000);
const GOAL_GROWTH_MB = 64;
const MB = 1024 * 1024;
/** After listening, before the baseline reading: start-up's garbage and lazy loads settle. */
const SETTLE_MS = 2_000;

const rssOf = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

interface Round {
  growthMb: number;
  beforeMb: number;
  seconds: number;
  bytes: number;
}

/** One server as `npm start` runs it, one export streamed to the end, the server stopped. */
async function exportOnce(env: Record<string, string>, path: string, key: string): Promise<Round> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-sie-memory-'));
  const child = spawn(process.execPath, ['--enable-source-maps', 'scripts/run-built.mjs', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...env,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_FORMAT: 'json',
      DISPATCHER_TIMER: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      // Both streams read to their end: a full pipe would stall the server.
      for (const stream of [child.stdout, child.stderr]) {
        stream.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /"port":(\d+)/.exec(out);
          if (match) resolve(Number(match[1]));
        });
      }
      child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening: ${out}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const pid = child.pid!;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    const started = performance.now();
    let bytes = 0;
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });
      if (response.status !== 200 || !response.body) throw new Error(`the SIE export answered ${response.status}: ${await response.text()}`);
      for await (const chunk of response.body) bytes += chunk.byteLength;
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(pid));
    return { growthMb: (peak - before) / MB, beforeMb: before / MB, seconds: (performance.now() - started) / 1000, bytes };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const summarise = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
};
const fmt = (s: { median: number; min: number; max: number }, digits = 1) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;

// The first round must not pay for a build.
if (spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
const bench = await openBooksBench(100_000);
try {
  const books = await generateBooks(bench.services, bench.pool, LINES);
  const path = `/api/v1/companies/${books.companyId}/fiscal-years/${books.fiscalYearId}/sie`;
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await exportOnce(bench.urls, path, books.key));
  if (new Set(rounds.map((r) => r.bytes)).size !== 1) throw new Error(`the rounds exported different files: ${rounds.map((r) => r.bytes).join(', ')} bytes`);
  const growth = summarise(rounds.map((r) => r.growthMb));
  // Every round must stay under the goal, so the worst one decides.
  const met = growth.max < GOAL_GROWTH_MB;
  console.log(
    `\nSIE export of ${LINES.toLocaleString('en')} lines (${(rounds[0]!.bytes / MB).toFixed(1)} MiB) from npm start's server (compiled, default heap, PostgreSQL), ${ROUNDS} rounds, a fresh server each:`,
  );
  console.log(`  RSS before the request MB  ${fmt(summarise(rounds.map((r) => r.beforeMb)))}`);
  console.log(`  peak RSS growth MB         ${fmt(growth)}   goal < ${GOAL_GROWTH_MB} MB (every round): ${met ? 'met' : 'MISSED'}`);
  console.log(`  export seconds             ${fmt(summarise(rounds.map((r) => r.seconds)), 2)}`);
  writeResult('sie-memory', { lines: LINES, growthMb: growth, seconds: summarise(rounds.map((r) => r.seconds)) });
  if (!met) process.exitCode = 1;
} finally {
  await bench.close();
}
