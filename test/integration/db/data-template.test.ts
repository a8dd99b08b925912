import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../domain/db/client.ts';
import { copyTemplate, makeTemplate, templateDir } from '../../../domain/db/data-template.ts';
import { migratePglite, readMigrations } from '../../../domain/db/migrate.ts';

/**
 * Issue 30: a first start copies the build's migrated template instead of running PGlite's initdb.
 * The template is PGlite's own data directory, so this suite is embedded-only (PostgreSQL servers
 * are created by their operator, and the suites there clone `tpl_<digest>` databases instead).
 * Templates here live in a folder of their own, never the checkout's .build/.
 */
describe('the migrated template of the embedded database', () => {
  const migrations = readMigrations();
  let templates: string;
  const scratch: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'acct-template-data-'));
    scratch.push(dir);
    return dir;
  };

  beforeAll(async () => {
    templates = fresh();
    expect((await makeTemplate(migrations, templates)).made).toBe(true);
  }, 120_000);
  afterAll(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('is made once per set of migrations and holds the schema with no key, user, company or check value', async () => {
    expect(await makeTemplate(migrations, templates)).toEqual({ dir: templateDir(migrations, templates), made: false });
    const created: string[] = [];
    const database = await openDatabase({ dataDir: fresh(), template: templateDir(migrations, templates), onCreated: (how) => created.push(how) });
    try {
      expect(created).toEqual(['template']);
      // Already migrated: opening it applies nothing.
      expect(await migratePglite(database.pglite!, migrations)).toEqual([]);
      const [counts] = await database.prisma.$queryRaw<Record<string, bigint>[]>`
        SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM companies) AS companies,
               (SELECT count(*) FROM api_keys) AS api_keys, (SELECT count(*) FROM encryption_key_check) AS key_checks,
               (SELECT count(*) FROM _prisma_migrations) AS migrations`;
      expect(counts).toEqual({ users: 0n, companies: 0n, api_keys: 0n, key_checks: 0n, migrations: BigInt(migrations.length) });
    } finally {
      await database.close();
    }
  });

  it('is named by the migrations: a template of other migrations is never copied, initdb runs as before and says so', async () => {
    const earlier = migrations.slice(0, -1);
    expect(templateDir(earlier, templates)).not.toBe(templateDir(migrations, templates));
    const dataDir = fresh();
    expect(copyTemplate(join(dataDir, 'pglite'), templateDir(earlier, templates))).toBe(false);
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);

    const created: string[] = [];
    const database = await openDatabase({
      dataDir,
      template: templateDir(earlier, templates),
      onCreated: (how, template) => created.push(`${how} ${template}`),
    });
    try {
      expect(created).toEqual([`initdb ${templateDir(earlier, templates)}`]);
      expect((await migratePglite(database.pglite!, migrations)).length).toBe(migrations.length);
    } finally {
      await database.close();
    }
  }, 120_000);

  it('leaves an existing database alone and replaces the template of older migrations when the new one is made', async () => {
    const dataDir = fresh();
    const first = await openDatabase({ dataDir, template: templateDir(migrations, templates) });
    await first.prisma.$executeRaw`INSERT INTO users (id, email, name) VALUES (gen_random_uuid(), 'kept@example.com', 'Kept')`;
    await first.close();
    const created: string[] = [];
    const again = await openDatabase({ dataDir, template: templateDir(migrations, templates), onCreated: (how) => created.push(how) });
    try {
      expect(created).toEqual([]);
      const [row] = await again.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM users WHERE email = 'kept@example.com'`;
      expect(row!.n).toBe(1n);
    } finally {
      await again.close();
    }

    const older = fresh();
    await makeTemplate(migrations.slice(0, -1), older);
    await makeTemplate(migrations, older);
    expect(readdirSync(older)).toEqual([templateDir(migrations, older).slice(older.length + 1)]);
  }, 240_000);
});
