import { describe, expect, it } from 'vitest';
import { postgresNotice } from '../postgres-notice.ts';

describe('npm test without TEST_DATABASE_URL', () => {
  it('says in one line that the PostgreSQL suites were skipped, and nothing when they ran', () => {
    const notice = postgresNotice({});
    expect(notice).toMatch(/^PostgreSQL suites skipped: TEST_DATABASE_URL is not set/);
    expect(notice).not.toContain('\n');
    expect(postgresNotice({ TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' })).toBeNull();
  });
});
