// npm run bench [dispatcher|claim|rest|mcp|commit|report]: each prints ratios against baselines measured in the
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
  report: () => import('./report.ts'),
} as const;
type Name = keyof typeof BENCHMARKS;

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
// The whole set (the dispatcher benchmark includes the claim) in about ten minutes: shorter
// rounds unless BENCH_ROUNDS / BENCH_DURATION say otherwise. One benchmark alone keeps 5 × 10 s.
const ALL: Name[] = ['dispatcher', 'rest', 'mcp', 'commit', 'report'];
if (asked.length === 0) {
  process.env.BENCH_ROUNDS ??= '3';
  process.env.BENCH_DURATION ??= '5';
}
const started = Date.now();
for (const name of (asked.length > 0 ? asked : ALL) as Name[]) await BENCHMARKS[name]();
console.log(`\nbenchmarks done in ${((Date.now() - started) / 60_000).toFixed(1)} min on ${(await import('node:os')).availableParallelism()} cores`);
