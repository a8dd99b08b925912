import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Says in one line when the PostgreSQL suites were skipped (no TEST_DATABASE_URL).
    globalSetup: ['test/postgres-notice.ts'],
    // Integration suites each open their own database; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
