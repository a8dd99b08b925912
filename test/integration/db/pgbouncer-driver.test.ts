import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, createPostgresDatabase, type TestDatabase } from '../../helpers/db.ts';
import { PGBOUNCER_BINARY, startPgbouncer, type Pgbouncer } from '../../helpers/pgbouncer.ts';
import { createPgPool, pgSql } from '../../../domain/db/sql.ts';
import type pg from 'pg';

/**
 * Why DATABASE_URL through PgBouncer in transaction mode gets unnamed statements: consecutive
 * statements of one pool connection run on different server connections there, so a statement
 * prepared by name on one is missing on the next (Debian's PgBouncer 1.18 keeps none across them).
 */
describe.skipIf(!POSTGRES_AVAILABLE || !PGBOUNCER_BINARY)('the bare driver through PgBouncer in transaction mode', () => {
  let db: TestDatabase & { url: string };
  let bouncer: Pgbouncer;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    // Fewer server connections than client ones: the pooler must switch them between statements.
    bouncer = await startPgbouncer({ serverUrl: db.url, databases: [new URL(db.url).pathname.slice(1)], users: [new URL(db.url).username], poolSize: 2 });
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await bouncer?.stop();
    await db?.drop();
  });

  const run = async (prepare: boolean): Promise<string[]> => {
    const pool = createPgPool(bouncer.url(db.url), 8);
    pools.push(pool);
    const sql = pgSql(pool, undefined, { prepare });
    const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => sql.query<{ n: number }>('SELECT $1::int AS n', [i])));
    return results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as Error).message] : []));
  };

  it('named statements fail there; unnamed ones all succeed', async () => {
    // Not a matter of timing: each of the 8 client connections prepares the statement once, onto
    // 2 server connections, so at least one server connection is asked to prepare it twice.
    expect(new Set(await run(true))).not.toEqual(new Set());
    expect(await run(false)).toEqual([]);
  });
});
