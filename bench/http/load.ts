/**
 * Paired load rounds (DESIGN.md §12): every server in its own process pinned to CPU 0, autocannon
 * in this process pinned to CPU 1, each round measuring every target once (in a rotating order,
 * so drift on a shared machine does not favour one), ratios taken within a round.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const SERVER_CPU = 0;
export const LOAD_CPU = 1;
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);

/** Pins every thread of a process to one CPU; false when taskset is missing (then unpinned). */
export function pin(pid: number, cpu: number): boolean {
  try {
    execFileSync('taskset', ['-a', '-pc', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface Server {
  target: string;
  pid: number;
  port: number;
  key?: string;
  /** SIGTERM; resolves once the process has exited (so its connections are gone). */
  stop(): Promise<void>;
}

const SERVER_PROCESS = join(dirname(fileURLToPath(import.meta.url)), 'server-process.ts');

/** Starts one target (see targets.ts) in its own process, pinned to the server core. */
export async function startServer(target: string, env: Record<string, string> = {}): Promise<Server> {
  // BENCH_CPU_PROF=<dir>: every server writes a V8 CPU profile there when it exits (not allowed in NODE_OPTIONS).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', SERVER_PROCESS, target], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env, NODE_ENV: process.env.NODE_ENV ?? 'development' },
  });
  pin(child.pid!, SERVER_CPU);
  let buffered = '';
  while (!buffered.includes('\n')) {
    const [chunk] = (await Promise.race([
      once(child.stdout!, 'data'),
      once(child, 'exit').then(() => {
        throw new Error(`${target} server exited`);
      }),
    ])) as [Buffer];
    buffered += chunk.toString();
  }
  // Threads started after the first pin (e.g. a worker pool) are pinned too.
  pin(child.pid!, SERVER_CPU);
  const info = JSON.parse(buffered.split('\n')[0]!) as { port: number; key?: string };
  const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined);
  return {
    target,
    pid: child.pid!,
    ...info,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface LoadSpec {
  name: string;
  /** The server process answering, whose CPU time per request is reported beside its throughput. */
  server: Server;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * A fresh path for every request (e.g. the next draft to commit), instead of `url`'s; `url`
   * still names the host and port.
   */
  path?: () => string;
  /**
   * Non-2xx answers are reported in the sample instead of failing the run (they never count as
   * throughput either way).
   */
  tolerateNon2xx?: boolean;
  /** Called after every run of this target; throws to stop the benchmark (e.g. its fixtures ran out). */
  afterRun?: () => void;
}

export interface Sample {
  /** 2xx answers per second: anything else is not throughput. */
  requestsPerSecond: number;
  /** Answers other than 2xx (always 0 unless the target tolerates them). */
  non2xx: number;
  p99Ms: number;
  /** The server process's CPU time (user + system) per 2xx answer. */
  cpuMicrosPerRequest: number;
}

const CLOCK_TICK_MICROS = 10_000; // USER_HZ is 100 on Linux

/** User + system CPU time of a process so far (/proc/<pid>/stat fields 14 and 15); NaN elsewhere. */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MICROS;
  } catch {
    return Number.NaN;
  }
}

async function fire(spec: LoadSpec, seconds: number): Promise<Sample> {
  const cpuBefore = cpuMicros(spec.server.pid);
  const next = spec.path;
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    ...(spec.body !== undefined && { body: spec.body }),
    ...(next && { requests: [{ setupRequest: (request) => ({ ...request, path: next() }) }] }),
    connections: CONNECTIONS,
    duration: seconds,
  });
  spec.afterRun?.();
  const failed = result.errors + result.timeouts + (spec.tolerateNon2xx ? 0 : result.non2xx);
  if (failed > 0)
    throw new Error(
      `${spec.name}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
    );
  const ok = result['2xx'];
  const cpu = cpuMicros(spec.server.pid) - cpuBefore;
  return { requestsPerSecond: ok / seconds, non2xx: result.non2xx, p99Ms: result.latency.p99, cpuMicrosPerRequest: cpu / ok };
}

/** Warms every target, then runs ROUNDS rounds; returns each target's samples in round order. */
export async function pairedRounds(all: LoadSpec[]): Promise<Map<string, Sample[]>> {
  // BENCH_ONLY=name,name narrows a run to some targets while investigating (their ratios only).
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
  const specs = only ? all.filter((spec) => only.some((o) => spec.name.includes(o))) : all;
  const samples = new Map(specs.map((spec) => [spec.name, [] as Sample[]]));
  for (const spec of specs) await fire(spec, WARMUP_S);
  for (let round = 0; round < ROUNDS; round++) {
    const order = specs.map((_, i) => specs[(i + round) % specs.length]!);
    for (const spec of order) {
      const sample = await fire(spec, DURATION_S);
      samples.get(spec.name)!.push(sample);
      const non2xx = sample.non2xx > 0 ? `, ${sample.non2xx} non-2xx` : '';
      process.stderr.write(
        `  round ${round + 1}/${ROUNDS} ${spec.name}: ${sample.requestsPerSecond.toFixed(0)} req/s, p99 ${sample.p99Ms} ms, ${sample.cpuMicrosPerRequest.toFixed(0)} µs CPU/request${non2xx}\n`,
      );
    }
  }
  return samples;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface Summary {
  median: number;
  min: number;
  max: number;
}
const summarise = (values: number[]): Summary => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

export interface TargetReport {
  name: string;
  samples: Sample[];
  requestsPerSecond: Summary;
  p99Ms: Summary;
  cpuMicrosPerRequest: Summary;
  /** Non-2xx answers over every round. */
  non2xx: number;
}
export interface RatioReport {
  name: string;
  /** null: reported for context, no goal of its own. */
  goal: number | null;
  /** Per-round throughput ratios (same round, so the same machine conditions), summarised. */
  ratio: Summary;
  met: boolean | null;
  /** The inverse ratio of CPU time per request (baseline ÷ ours): what throughput would be on an idle core. */
  cpuRatio: Summary;
}

export function report(
  samples: Map<string, Sample[]>,
  ratios: { name: string; of: string; over: string; goal: number | null }[],
): { targets: TargetReport[]; ratios: RatioReport[] } {
  const targets = [...samples].map(([name, list]) => ({
    name,
    samples: list,
    requestsPerSecond: summarise(list.map((s) => s.requestsPerSecond)),
    p99Ms: summarise(list.map((s) => s.p99Ms)),
    cpuMicrosPerRequest: summarise(list.map((s) => s.cpuMicrosPerRequest)),
    non2xx: list.reduce((sum, s) => sum + s.non2xx, 0),
  }));
  const ratioReports = ratios
    .filter(({ of, over }) => samples.has(of) && samples.has(over))
    .map(({ name, of, over, goal }) => {
      const a = samples.get(of)!;
      const b = samples.get(over)!;
      const perRound = a.map((sample, i) => sample.requestsPerSecond / b[i]!.requestsPerSecond);
      const ratio = summarise(perRound);
      const cpuRatio = summarise(a.map((sample, i) => b[i]!.cpuMicrosPerRequest / sample.cpuMicrosPerRequest));
      return { name, goal, ratio, met: goal === null ? null : ratio.median >= goal, cpuRatio };
    });
  return { targets, ratios: ratioReports };
}

export function print(title: string, result: { targets: TargetReport[]; ratios: RatioReport[] }): void {
  const fmt = (s: Summary, digits = 0) => `${s.median.toFixed(digits).padStart(7)} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;
  console.log(
    `\n${title}: ${ROUNDS} paired rounds of ${DURATION_S} s, ${CONNECTIONS} connections; ${cpus().length} cores, server on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU}`,
  );
  console.log(`  ${'target'.padEnd(34)} ${'req/s median (min-max)'.padEnd(26)} ${'p99 ms median (min-max)'.padEnd(26)} server CPU µs/request`);
  for (const t of result.targets) {
    const non2xx = t.non2xx > 0 ? `   NON-2XX: ${t.non2xx} (not counted)` : '';
    console.log(`  ${t.name.padEnd(34)} ${fmt(t.requestsPerSecond).padEnd(26)} ${fmt(t.p99Ms, 1).padEnd(26)} ${fmt(t.cpuMicrosPerRequest)}${non2xx}`);
  }
  for (const r of result.ratios) {
    const range = (s: Summary) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}-${s.max.toFixed(2)})`;
    const goal = r.goal === null ? '(context)         ' : `goal >= ${r.goal.toFixed(2)}  ${r.met ? 'met   ' : 'MISSED'}`;
    console.log(`  ratio ${r.name.padEnd(28)} ${range(r.ratio)}  ${goal}   [CPU per request: ${range(r.cpuRatio)}]`);
  }
}

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'latest.json');

/** Merges one benchmark's result into bench/results/latest.json (other benchmarks' entries stay). */
export function writeResult(name: string, result: unknown): void {
  mkdirSync(dirname(RESULTS), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, unknown>;
  } catch {
    // first result
  }
  all[name] = {
    at: new Date().toISOString(),
    settings: { rounds: ROUNDS, durationSeconds: DURATION_S, connections: CONNECTIONS, cores: cpus().length, serverCpu: SERVER_CPU, loadCpu: LOAD_CPU },
    ...(result as object),
  };
  writeFileSync(RESULTS, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`  written to bench/results/latest.json (${name})`);
}
