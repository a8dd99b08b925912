import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { findUp } from '../kernel/find-up.ts';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Prisma's folder format: prisma/migrations/<timestamp>_<name>/migration.sql. Found by walking up
 * from this module, so the same code finds it from the sources (domain/db/) and from the compiled
 * bundle `npm start` runs (.build/).
 */
export const MIGRATIONS_DIR = findUp(import.meta.url, join('prisma', 'migrations'));

// Any constant works; it keeps two processes starting at once from migrating concurrently.
const MIGRATION_LOCK_ID = 72_410_331;

/** Prisma's own bookkeeping table, so `prisma migrate deploy` agrees with what we applied. */
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS _prisma_migrations (
  id                  varchar(36) PRIMARY KEY NOT NULL,
  checksum            varchar(64) NOT NULL,
  finished_at         timestamptz,
  migration_name      varchar(255) NOT NULL,
  logs                text,
  rolled_back_at      timestamptz,
  started_at          timestamptz NOT NULL DEFAULT now(),
  applied_steps_count integer NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** A short digest naming one set of migrations: a migrated template made for them is valid for them only. */
export function migrationsDigest(migrations: Migration[]): string {
  return createHash('sha256')
    .update(migrations.map((m) => `${m.name}:${m.checksum}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/** The smallest surface both engines offer: run a (multi-statement) script, run a query. */
interface SqlRunner {
  exec(sql: string): Promise<void>;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

async function applyAll(runner: SqlRunner, migrations: Migration[]): Promise<string[]> {
  // Created only when missing: on PGlite the CREATE … IF NOT EXISTS cost every start about 30 ms
  // of a cold backend, the look-up a few (issue 30). IF NOT EXISTS still covers a race.
  const [table] = await runner.query<{ present: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present");
  if (!table?.present) await runner.exec(CREATE_MIGRATIONS_TABLE);
  const done = await runner.query<{ migration_name: string; checksum: string }>(
    'SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const applied = new Map(done.map((row) => [row.migration_name, row.checksum]));
  const newlyApplied: string[] = [];
  for (const migration of migrations) {
    const known = applied.get(migration.name);
    if (known !== undefined) {
      if (known !== migration.checksum) {
        throw new Error(`Migration ${migration.name} was changed after it was applied; add a new migration instead.`);
      }
      continue;
    }
    // Each migration and its record commit together, so a failure leaves nothing half-applied.
    await runner.exec('BEGIN');
    try {
      await runner.exec(migration.sql);
      await runner.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      await runner.exec('COMMIT');
    } catch (error) {
      await runner.exec('ROLLBACK');
      throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`);
    }
    newlyApplied.push(migration.name);
  }
  return newlyApplied;
}

export async function migratePglite(db: PGlite, migrations = readMigrations()): Promise<string[]> {
  return applyAll(
    {
      exec: async (sql) => {
        await db.exec(sql);
      },
      query: async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows,
    },
    migrations,
  );
}

export async function migratePostgres(connectionString: string, migrations = readMigrations()): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    return await applyAll(
      {
        exec: async (sql) => {
          await client.query(sql);
        },
        query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
      },
      migrations,
    );
  } finally {
    await client.end();
  }
}
