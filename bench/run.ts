// npm run bench [dispatcher|rest|mcp]: each prints ratios against baselines measured in the same
// run; no argument runs all three. Never part of `npm test`.
// Needs PostgreSQL: TEST_DATABASE_URL (default: the machine's postgres://postgres@127.0.0.1:5432/test).
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

const BENCHMARKS = {
  dispatcher: () => import('./dispatcher.ts'),
  rest: () => import('./rest.ts'),
  mcp: () => import('./mcp.ts'),
} as const;
type Name = keyof typeof BENCHMARKS;

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
for (const name of (asked.length > 0 ? asked : Object.keys(BENCHMARKS)) as Name[]) await BENCHMARKS[name]();
