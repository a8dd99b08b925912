/**
 * `npm run bench startup`: time from spawning the server to its first 200 on GET /api/v1/health,
 * on an empty data directory (cold: migrations, seed, PGlite's initdb) and again on the same
 * directory (warm) — `npm start`'s way (compiled JavaScript from .build/, scripts/run-built.mjs)
 * beside the same sources run through tsx (`node --import tsx cli/serve.ts`, how `npm start` ran
 * before), in paired rounds, each figure with its spread. Goals (issue 30): cold ≤ 4 s, warm ≤ 1.5 s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUNDS, writeResult } from './http/load.ts';
import { freePort } from '../test/helpers/pg-cluster.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const TARGETS = {
  'npm start (compiled)': ['--enable-source-maps', 'scripts/run-built.mjs', 'serve'],
  'tsx (before)': ['--import', 'tsx', 'cli/serve.ts'],
} as const;
type Target = keyof typeof TARGETS;
const GOALS_MS = { cold: 4000, warm: 1500 };

interface Start {
  ms: number;
  cpuMs: number;
}

/** Starts a server on the data directory, waits for its first 200, stops it; wall and CPU time of the process. */
async function timeStart(target: Target, dataDir: string, port: number): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [...TARGETS[target]], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Kept for the error of a start that fails (a taken port, say): the bench then says why.
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${target} exited with ${child.exitCode} before answering: ${stderr.trim()}`);
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ms = performance.now() - started;
    // utime + stime of every thread so far, in clock ticks (100 per second on Linux).
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
    return { ms, cpuMs };
  } finally {
    // A child that already exited (it failed to start) emits no second 'exit': waiting for one left
    // nothing pending, and Node ended the run with code 13 instead of the error above.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const summarise = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
};
const fmt = (s: { median: number; min: number; max: number }) => `${s.median.toFixed(0).padStart(6)} (${s.min.toFixed(0)}-${s.max.toFixed(0)})`;

// The first round must not pay for a build.
if (spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
const samples = new Map<string, Start[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const target of Object.keys(TARGETS) as Target[]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
    try {
      // The kernel's pick, not a random one: other sessions' servers share this machine.
      const cold = await timeStart(target, dataDir, await freePort());
      const warm = await timeStart(target, dataDir, await freePort());
      for (const [phase, start] of [
        ['cold', cold],
        ['warm', warm],
      ] as const) {
        const key = `${target} ${phase}`;
        samples.set(key, [...(samples.get(key) ?? []), start]);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

console.log(`\nstart-up to the first 200 (GET /api/v1/health): ${ROUNDS} paired rounds, empty data directory (cold) then again (warm)`);
console.log(`  ${'target'.padEnd(32)} ${'ms median (min-max)'.padEnd(22)} CPU ms median (min-max)`);
const result: Record<string, unknown> = {};
for (const [key, list] of samples) {
  const ms = summarise(list.map((s) => s.ms));
  const cpu = summarise(list.map((s) => s.cpuMs));
  result[key] = { ms, cpuMs: cpu };
  const phase = key.endsWith('cold') ? 'cold' : 'warm';
  const goal = key.startsWith('npm start') ? `   goal <= ${GOALS_MS[phase]} ms ${ms.median <= GOALS_MS[phase] ? 'met' : 'MISSED'}` : '';
  console.log(`  ${key.padEnd(32)} ${fmt(ms).padEnd(22)} ${fmt(cpu)}${goal}`);
}
for (const phase of ['cold', 'warm'] as const) {
  const built = samples.get(`npm start (compiled) ${phase}`)!;
  const before = samples.get(`tsx (before) ${phase}`)!;
  const ratio = summarise(built.map((s, i) => before[i]!.ms / s.ms));
  console.log(`  ratio ${phase}: tsx ÷ compiled ${ratio.median.toFixed(2)} (${ratio.min.toFixed(2)}-${ratio.max.toFixed(2)})`);
}
writeResult('startup', result);
