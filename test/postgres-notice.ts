/**
 * vitest global setup: a run without TEST_DATABASE_URL tested PGlite only, and says so in one line
 * at the end, so CI can never be silently PGlite-only.
 */
export const POSTGRES_SKIPPED_NOTICE =
  'PostgreSQL suites skipped: TEST_DATABASE_URL is not set, so only PGlite ran (set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run them too).';

export function postgresNotice(env: Record<string, string | undefined>): string | null {
  return env.TEST_DATABASE_URL ? null : POSTGRES_SKIPPED_NOTICE;
}

export default function setup(): () => void {
  return () => {
    const notice = postgresNotice(process.env);
    if (notice) process.stderr.write(`\n${notice}\n`);
  };
}
