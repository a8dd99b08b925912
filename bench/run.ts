// npm run bench: every benchmark, each printing ratios against a baseline measured in the same run.
// Needs PostgreSQL: TEST_DATABASE_URL (default: the machine's postgres://postgres@127.0.0.1:5432/test).
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
await import('./dispatcher.ts');
