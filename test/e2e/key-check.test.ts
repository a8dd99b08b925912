import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServices } from '../../domain/bootstrap.ts';
import { ConfigError } from '../../domain/kernel/config.ts';
import { createPostgresDatabase, DB_TARGETS, LogCapture, testConfig, type DbTarget } from '../helpers/db.ts';
import { startEntry } from '../helpers/process.ts';

/**
 * Issue 28, key check: a server started with another ENCRYPTION_KEY used to mark every due
 * delivery dead within seconds. The first start now records a check value of the key; every
 * entry point (npm start, npm run worker, npm run admin) started with another key refuses with one
 * line on stderr and a non-zero exit, before anything uses the key.
 */
const key = () => randomBytes(32).toString('hex');
const MISMATCH =
  /is not the key this database was first started with \(its check value was recorded [^)]+\): start with that key; with another, stored secrets cannot be decrypted\.$/;

/** One database of the engine that outlives the processes started on it. */
async function database(target: DbTarget): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (target === 'pglite') return { env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-key-check-')) }, drop: async () => {} };
  const db = await createPostgresDatabase();
  return { env: { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-key-check-')) }, drop: db.drop };
}

/** Starts with these settings as the entry points do (in-process), then closes. */
async function start(env: Record<string, string | undefined>): Promise<void> {
  const services = await createServices(testConfig(env), { logger: new LogCapture().logger });
  await services.database.close();
}

describe.each(DB_TARGETS)('encryption key check (%s)', (target) => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  it('the first start records the key; a start with another key is refused, with the same key it starts', async () => {
    const db = await database(target);
    drops.push(db.drop);
    const first = key();
    await start({ ...db.env, ENCRYPTION_KEY: first });
    await expect(start({ ...db.env, ENCRYPTION_KEY: key() })).rejects.toThrow(ConfigError);
    await expect(start({ ...db.env, ENCRYPTION_KEY: key() })).rejects.toThrow(new RegExp(`^ENCRYPTION_KEY ${MISMATCH.source}`));
    await start({ ...db.env, ENCRYPTION_KEY: first });
    if (target === 'pglite') {
      // Without ENCRYPTION_KEY the embedded default is the key file in DATA_DIR: a new one is not the recorded key either.
      await expect(start({ ...db.env, ENCRYPTION_KEY: undefined })).rejects.toThrow(
        new RegExp(`^The key file ${join(db.env.DATA_DIR!, 'encryption.key').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${MISMATCH.source}`),
      );
    }
  });

  it('npm start, npm run admin and (PostgreSQL) npm run worker with another key exit 1 with one line on stderr', async () => {
    const db = await database(target);
    drops.push(db.drop);
    await start({ ...db.env, ENCRYPTION_KEY: key() });
    const wrong = { ...db.env, ENCRYPTION_KEY: key(), LOG_LEVEL: 'silent', PORT: '0' };
    const entries: [string, string[]][] = [
      ['cli/serve.ts', []],
      ['cli/admin.ts', ['user', 'list']],
      ...(target === 'postgres' ? ([['cli/worker.ts', []]] as [string, string[]][]) : []),
    ];
    for (const [entry, args] of entries) {
      const proc = startEntry(entry, wrong, args);
      const [code] = (await once(proc.child, 'close')) as [number];
      expect({ entry, code, stdout: proc.stdout() }).toEqual({ entry, code: 1, stdout: '' });
      const lines = proc.stderr().trimEnd().split('\n');
      expect(lines, entry).toHaveLength(1);
      expect(lines[0], entry).toMatch(new RegExp(`^ENCRYPTION_KEY ${MISMATCH.source}`));
    }
  }, 120_000);
});
