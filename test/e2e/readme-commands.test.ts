import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startEntry, startProcessInShell, type RunningProcess } from '../helpers/process.ts';
import { readmeBlock } from '../helpers/readme.ts';
import { POSTGRES_AVAILABLE } from '../helpers/db.ts';

/**
 * README's shell blocks run as written (issue 29): the five bookkeeping calls after `export
 * API_KEY=…` against a freshly started server, and the PostgreSQL set-up from an empty database to
 * a served demo key. Only what a reader must change is changed: the key, the port, the database name.
 */

const run = promisify(execFile);

/** The JSON documents curl printed back to back (no newline between them), in order. */
function jsonValues(text: string): any[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') {
      if (depth++ === 0) start = i;
    } else if (char === '}' && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  // `any`: four different answers; the test reads the fields each one has.
  return values as any[];
}
const SLOW = 300_000; // a first start (migrations of a fresh database) on a shared two-core machine

describe('README commands', () => {
  const running: RunningProcess[] = [];
  afterAll(async () => Promise.all(running.map((p) => p.stop())));

  it(
    'books an entry with the five calls, export API_KEY first',
    async () => {
      const server = startEntry('cli/serve.ts', { DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-readme-')), PORT: '0', LOG_LEVEL: 'info' });
      running.push(server);
      const [, port] = await server.waitFor(/"port":(\d+)/);
      const key = server.stdout().match(/(sk_test_[0-9A-Za-z]{32})/)?.[1];
      expect(key).toBeDefined();
      const block = readmeBlock('readme-command:five-calls');
      expect(block.split('\n')[0]).toMatch(/^export API_KEY=sk_test_…/);
      const script = block.replace('sk_test_…', key!).replaceAll('localhost:3000', `127.0.0.1:${port}`);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
      // Call 3 (dry run) and call 4 (commit) both answer voucher A1; call 5 lists it, committed.
      const answers = jsonValues(stdout);
      const [accounts, dryRun, committed, books] = answers;
      expect(accounts.data.accounts.map((a: { number: string }) => a.number)).toContain('1930');
      expect(dryRun).toMatchObject({ meta: { dry_run: true }, data: { voucher: 'A1', status: 'committed' } });
      expect(committed.data).toMatchObject({ voucher: 'A1', status: 'committed', description: 'Kontorsmaterial' });
      expect(books.data.journal_entries).toEqual([expect.objectContaining({ voucher: 'A1' })]);
      await server.stop();
    },
    SLOW,
  );

  it.skipIf(!POSTGRES_AVAILABLE)(
    'sets up PostgreSQL from an empty database to a served demo key',
    async () => {
      const admin = new URL(process.env.TEST_DATABASE_URL!);
      const name = `readme_${randomBytes(4).toString('hex')}`;
      const block = readmeBlock('readme-command:postgres')
        .replace(/\baccounting\b/g, name)
        .replaceAll('127.0.0.1:5432', `${admin.hostname}:${admin.port || 5432}`);
      expect(block.trim().split('\n').at(-1)).toMatch(/^npm start\b/);
      try {
        const server = startProcessInShell(block, { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', HOME: process.env.HOME ?? '/tmp' });
        running.push(server);
        const [, port] = await server.waitFor(/"port":(\d+)/);
        const key = server.stdout().match(/(sk_test_[0-9A-Za-z]{32})/)?.[1];
        expect(key).toBeDefined();
        const companies = await (await fetch(`http://127.0.0.1:${port}/api/v1/companies`, { headers: { authorization: `Bearer ${key}` } })).json();
        expect(companies.data.companies).toEqual([expect.objectContaining({ name: 'Demo Bokföring AB' })]);
        // Public routes answer through api_anon (DATABASE_ANON_URL).
        expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
        await server.stop();
      } finally {
        const client = new pg.Client({ connectionString: admin.toString() });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      }
    },
    SLOW,
  );
});
