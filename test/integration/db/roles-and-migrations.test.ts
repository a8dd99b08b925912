import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeTenant } from '../../helpers/factories.ts';
import { migratePglite, migratePostgres, readMigrations } from '../../../domain/db/migrate.ts';
import { sha256Hex } from '../../../domain/kernel/crypto.ts';
import { sqlState } from '../../../domain/db/errors.ts';

/** Runs SQL as the api_anon identity the public routes use, and returns the SQLSTATE it fails with. */
async function anonError(t: TestServices, sql: string): Promise<string | null> {
  try {
    await t.services.database.asAnon((db) => db.$queryRawUnsafe(sql));
    return null;
  } catch (error) {
    return sqlState(error);
  }
}

engineSuite('least-privilege identity and migrations', {}, (t) => {
  beforeAll(async () => {
    await makeTenant(t.services.database.prisma);
  });

  it.each(['api_keys', 'users', 'companies', 'memberships', 'idempotency_records', 'audit_log', 'rate_limit_counters'])(
    'denies api_anon reading %s with SQLSTATE 42501',
    async (table) => {
      expect(await anonError(t, `SELECT * FROM ${table} LIMIT 1`)).toBe('42501');
    },
  );

  it('denies api_anon the request admission function (it counts and reveals tenancy)', async () => {
    expect(await anonError(t, `SELECT * FROM admit_request(NULL, gen_random_uuid(), NULL, now())`)).toBe('42501');
  });

  it('lets api_anon resolve a key digest only through the attribution function', async () => {
    const key = await t.services.database.prisma.apiKey.findFirstOrThrow();
    const rows = await t.services.database.asAnon(
      (db) => db.$queryRaw<{ api_key_id: string }[]>`SELECT api_key_id FROM resolve_api_key_attribution(${key.keyHash})`,
    );
    expect(rows).toEqual([{ api_key_id: key.id }]);
    const none = await t.services.database.asAnon((db) => db.$queryRaw<unknown[]>`SELECT * FROM resolve_api_key_attribution(${sha256Hex('nope')})`);
    expect(none).toEqual([]);
  });

  it('runs as a different role than the privileged client', async () => {
    const anon = await t.services.database.asAnon((db) => db.$queryRaw<{ u: string }[]>`SELECT current_user AS u`);
    expect(anon[0]?.u).toBe('api_anon');
    const privileged = await t.services.database.prisma.$queryRaw<{ u: string }[]>`SELECT current_user AS u`;
    expect(privileged[0]?.u).not.toBe('api_anon');
  });

  it('records every migration in _prisma_migrations and re-running applies nothing', async () => {
    const rows = await t.services.database.prisma.$queryRaw<{ migration_name: string; checksum: string }[]>`
      SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name`;
    expect(rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, checksum: m.checksum })));
    const again = t.services.database.pglite ? await migratePglite(t.services.database.pglite) : await migratePostgres(t.database!.url);
    expect(again).toEqual([]);
  });

  it('refuses a migration whose file changed after it was applied', async () => {
    const changed = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'x'.repeat(64) } : m));
    const run = t.services.database.pglite ? migratePglite(t.services.database.pglite, changed) : migratePostgres(t.database!.url, changed);
    await expect(run).rejects.toThrow(/changed after it was applied/);
  });

  it('keeps the audit log append-only', async () => {
    await t.services.database.prisma.auditLog.create({ data: { action: 'test', actorType: 'system' } });
    await expect(t.services.database.prisma.$executeRawUnsafe('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    await expect(t.services.database.prisma.$executeRawUnsafe(`UPDATE audit_log SET action = 'x'`)).rejects.toThrow(/append-only/);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('api_anon over its own PostgreSQL connection', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());

  it('gets SQLSTATE 42501 on api_keys', async () => {
    const client = new pg.Client({ connectionString: t.database!.anonUrl });
    await client.connect();
    try {
      await expect(client.query('SELECT * FROM api_keys')).rejects.toMatchObject({ code: '42501' });
      await expect(
        client.query(`INSERT INTO api_keys (user_id, name, prefix, key_hash, mode) VALUES (gen_random_uuid(), 'x', 'x', '${'a'.repeat(64)}', 'test')`),
      ).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.end();
    }
  });
});
