// npm run bench [dispatcher|claim|rest|mcp|commit|report|ledger|startup|sie-memory|uploads|sie-import]: each prints ratios against baselines measured in the
// same run; no argument runs them all. Never part of `npm test`.
// Needs PostgreSQL: TEST_DATABASE_URL (default: the machine's postgres://postgres@127.0.0.1:5432/test).
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

const BENCHMARKS = {
  // The dispatcher's throughput, then its claim with a two-company backlog beside the pre-fairness claim.
  dispatcher: () => import('./dispatcher.ts').then(() => import('./claim.ts')).then((claim) => claim.measureClaim()),
  claim: () => import('./claim.ts').then((claim) => claim.measureClaim()),
  rest: () => import('./rest.ts'),
  mcp: () => import('./mcp.ts'),
  // Journal entry commits with fan-out to 3 webhooks beside a raw-SQL transaction writing the same rows.
  commit: () => import('./commit.ts'),
  // In a process of its own with a bounded heap, as the service would run: with a default heap on
  // a large machine V8 lets the export's garbage pile up (RSS +194 MB at 1M lines, +16 MB bounded),
  // and the benchmark's RSS check measures retention, not the collector's laziness.
  report: () => runIsolated('report.ts', ['--max-old-space-size=160']),
  // The general ledger's page 1 and page 500 at 1M lines and page 1 at 10k (a keyset on an index).
  ledger: () => import('./ledger.ts'),
  // Cold and warm start-up of `npm start` beside the same sources run through tsx.
  startup: () => import('./startup.ts'),
  // The SIE export of a 1M-line year from a server started as `npm start` starts it (default heap): its RSS growth (issue 30).
  'sie-memory': () => import('./sie-memory.ts'),
  // Eight concurrent 20 MiB document uploads to one server: its RSS growth (issue 28).
  uploads: () => runIsolated('uploads.ts', []),
  // A 50 MiB SIE import's server RSS growth, and health/read p99 while the largest sample imports on PGlite (issue 27).
  'sie-import': () => runIsolated('sie-import.ts', []),
} as const;
type Name = keyof typeof BENCHMARKS;

/** Runs one benchmark file in a child process with extra Node options; its failure fails the run. */
async function runIsolated(file: string, nodeOptions: string[]): Promise<void> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', new URL(file, import.meta.url).pathname], { stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) process.exitCode = code ?? 1;
}

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
// The whole set (the dispatcher benchmark includes the claim) in about ten minutes: shorter
// rounds unless BENCH_ROUNDS / BENCH_DURATION say otherwise. One benchmark alone keeps 5 × 10 s.
const ALL: Name[] = ['dispatcher', 'rest', 'mcp', 'commit', 'report', 'ledger', 'startup', 'sie-memory', 'uploads', 'sie-import'];
if (asked.length === 0) {
  process.env.BENCH_ROUNDS ??= '3';
  process.env.BENCH_DURATION ??= '5';
}
const started = Date.now();
for (const name of (asked.length > 0 ? asked : ALL) as Name[]) await BENCHMARKS[name]();
// os.cpus(), not availableParallelism(): this process is pinned to one core by now.
console.log(`\nbenchmarks done in ${((Date.now() - started) / 60_000).toFixed(1)} min on a ${(await import('node:os')).cpus().length}-core machine`);
