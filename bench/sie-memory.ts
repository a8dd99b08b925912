/**
 * `npm run bench sie-memory` (issue 30): the SIE export of a 1M-line year from a server process
 * started as `npm start` starts it (scripts/run-built.mjs serve: compiled, Node's default heap, no
 * --max-old-space-size), on PostgreSQL. Its resident set is read from /proc before the request,
 * every 20 ms while the file is streamed to the end by this process, and the peak growth is
 * compared with the goal. A fresh server each round answers one plain read first (what any first
 * request costs a new process, printed on its own), then exports twice, each export against the
 * goal; ROUNDS rounds, each figure with its spread. report.ts measures the same export in-process with a
 * bounded heap; this one measures what a user's server does. `BENCH_REPORT_LINES` sets the size.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateBooks, openBooksBench } from './books.ts';
import { ROUNDS, writeResult } from './http/load.ts';
import { listeningPort } from './http/listening-port.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const LINES = Number(process.env.BENCH_REPORT_LINES ?? 1_000_000);
const GOAL_GROWTH_MB = 64;
const MB = 1024 * 1024;
/** After listening and between the exports, before a baseline reading: garbage and lazy loads settle. */
const SETTLE_MS = 2_000;
/** Empty: npm start's own flags. Set (e.g. `--max-old-space-size=160`) to tell garbage not yet collected from retention. */
const SERVER_NODE_OPTIONS = process.env.BENCH_SERVER_NODE_OPTIONS ?? '';

const rssOf = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

interface Export {
  /** Peak RSS during the export less RSS just before its request. */
  growthMb: number;
  beforeMb: number;
  seconds: number;
  bytes: number;
}

/** RSS growth of the server's first request (a plain read), then its first export and a second one. */
interface Round {
  firstRequestMb: number;
  first: Export;
  again: Export;
}

/** One export streamed to the end by this process while the server's RSS is sampled. */
async function exportWhileSampling(pid: number, url: string, key: string): Promise<Export> {
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  const started = performance.now();
  let bytes = 0;
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200 || !response.body) throw new Error(`the SIE export answered ${response.status}: ${await response.text()}`);
    for await (const chunk of response.body) bytes += chunk.byteLength;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssOf(pid));
  return { growthMb: (peak - before) / MB, beforeMb: before / MB, seconds: (performance.now() - started) / 1000, bytes };
}

/** One server as `npm start` runs it, two exports, the server stopped. */
async function exportTwice(env: Record<string, string>, path: string, key: string): Promise<Round> {
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
      ...(SERVER_NODE_OPTIONS && { NODE_OPTIONS: SERVER_NODE_OPTIONS }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = (): string => '';
  try {
    const listening = await listeningPort(child);
    output = listening.output;
    const { port } = listening;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const url = `http://127.0.0.1:${port}${path}`;
    // A running server has served something before: one ordinary read first, measured on its own.
    // It starts what any first request starts (on PostgreSQL, Prisma's query compiler: about
    // 100 MB of RSS once per process), which would otherwise be counted as the export's.
    const warm = rssOf(child.pid!);
    const answer = await fetch(`http://127.0.0.1:${port}${path.replace(/\/[^/]+\/sie$/, '')}`, { headers: { authorization: `Bearer ${key}` } });
    if (answer.status !== 200) throw new Error(`the warm-up read answered ${answer.status}`);
    await answer.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const firstRequestMb = (rssOf(child.pid!) - warm) / MB;
    const first = await exportWhileSampling(child.pid!, url, key);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const again = await exportWhileSampling(child.pid!, url, key);
    return { firstRequestMb, first, again };
  } catch (error) {
    // A cut export says little on this side ("other side closed"): the server's log says why.
    throw new Error(`an export failed; the server printed:\n${output().slice(-4000)}`, { cause: error });
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
  for (let round = 0; round < ROUNDS; round++) rounds.push(await exportTwice(bench.urls, path, books.key));
  const exports = rounds.flatMap((r) => [r.first, r.again]);
  if (new Set(exports.map((e) => e.bytes)).size !== 1) throw new Error(`the exports differ: ${exports.map((e) => e.bytes).join(', ')} bytes`);
  const first = summarise(rounds.map((r) => r.first.growthMb));
  const again = summarise(rounds.map((r) => r.again.growthMb));
  // Every export must stay under the goal, so the worst one decides.
  const met = Math.max(first.max, again.max) < GOAL_GROWTH_MB;
  const heap = SERVER_NODE_OPTIONS ? `NODE_OPTIONS=${SERVER_NODE_OPTIONS}` : 'default heap';
  console.log(
    `\nSIE export of ${LINES.toLocaleString('en')} lines (${(exports[0]!.bytes / MB).toFixed(1)} MiB) from npm start's server (compiled, ${heap}, PostgreSQL), ${ROUNDS} rounds, a fresh server each exporting twice:`,
  );
  console.log(`  RSS growth of a first plain read MB ${fmt(summarise(rounds.map((r) => r.firstRequestMb)))}   (once per process, not the export's)`);
  console.log(`  RSS before the first export MB      ${fmt(summarise(rounds.map((r) => r.first.beforeMb)))}`);
  console.log(`  peak RSS growth, first export MB    ${fmt(first)}`);
  console.log(`  peak RSS growth, second export MB   ${fmt(again)}   goal < ${GOAL_GROWTH_MB} MB (every export): ${met ? 'met' : 'MISSED'}`);
  console.log(
    `  export seconds (first, second)      ${fmt(summarise(rounds.map((r) => r.first.seconds)), 2)}, ${fmt(summarise(rounds.map((r) => r.again.seconds)), 2)}`,
  );
  writeResult('sie-memory', {
    lines: LINES,
    nodeOptions: SERVER_NODE_OPTIONS,
    firstRequestMb: summarise(rounds.map((r) => r.firstRequestMb)),
    firstGrowthMb: first,
    secondGrowthMb: again,
    seconds: summarise(exports.map((e) => e.seconds)),
  });
  if (!met) process.exitCode = 1;
} finally {
  await bench.close();
}
