import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachRow, readRows, withTransaction, type OperationContext } from '../../../domain/context.ts';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeCompany, systemContext } from '../../helpers/factories.ts';

/**
 * The bare driver's one call (readRows) works wherever the context is — outside a transaction on
 * the pool, inside one on the transaction's own connection, as api_anon on public routes — and
 * its rows parse the same everywhere, so a statement needs one text (domain/db/transaction-link.ts).
 */
/** Every statement the suite's services send (reset before each measurement). */
const log: string[] = [];

engineSuite('the bare driver inside and outside transactions', { onStatement: (sql) => log.push(sql) }, (t) => {
  let ctx: OperationContext;
  beforeAll(async () => {
    ctx = systemContext(t.services);
  });

  /** One row of every type whose parsing the two engines' drivers would otherwise disagree on. */
  const TYPES = `SELECT 9007199254740993::int8 AS big, DATE '2026-02-28' AS day, 12.50::numeric AS amount,
                        TIMESTAMPTZ '2026-11-27 10:00:00.123456+00' AS at, '{"a": [1, 2]}'::jsonb AS doc,
                        ARRAY['x', 'y']::text[] AS list, 7::int AS n, true AS yes, NULL::text AS nothing`;
  const EXPECTED = {
    big: 9007199254740993n,
    day: '2026-02-28',
    amount: '12.50',
    at: new Date('2026-11-27T10:00:00.123Z'),
    doc: { a: [1, 2] },
    list: ['x', 'y'],
    n: 7,
    yes: true,
    nothing: null,
  };

  it('parses a row the same outside a transaction, inside one, and as api_anon', async () => {
    const outside = await readRows(ctx, TYPES, []);
    const inside = await withTransaction(ctx, (tx) => readRows(tx, TYPES, []));
    const anon = await t.services.database.asAnon((db) => readRows({ ...ctx, db, inTransaction: true }, TYPES, []));
    expect(outside).toEqual([EXPECTED]);
    expect(inside).toEqual([EXPECTED]);
    expect(anon).toEqual([EXPECTED]);
  });

  it('eachRow hands on the rows readRows returns, in order, outside and inside a transaction; a throwing handler rejects once the statement ended', async () => {
    const series = 'SELECT n, n::int8 * 10 AS big FROM generate_series(1, $1::int) AS n ORDER BY n';
    const rows = await readRows<{ n: number; big: bigint }>(ctx, series, [2500]);
    expect(rows).toHaveLength(2500);
    const outside: unknown[] = [];
    expect(await eachRow(ctx, series, [2500], (row) => outside.push(row))).toBe(2500);
    expect(outside).toEqual(rows);
    const inside: unknown[] = [];
    expect(await withTransaction(ctx, (tx) => eachRow(tx, series, [2500], (row) => inside.push(row)))).toBe(2500);
    expect(inside).toEqual(rows);
    expect(await eachRow(ctx, TYPES, [], (row) => expect(row).toEqual(EXPECTED))).toBe(1);

    let seen = 0;
    const failing = withTransaction(ctx, (tx) =>
      eachRow<{ n: number }>(tx, series, [2500], (row) => {
        seen += 1;
        if (row.n === 3) throw new Error('handler failed');
      }),
    );
    await expect(failing).rejects.toThrow('handler failed');
    expect(seen).toBe(3);
    // The connection went back usable: the statement was read to its end.
    expect(await readRows(ctx, 'SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });

  it('inside a transaction runs on its connection: it sees the uncommitted write, and a rollback takes its own write back', async () => {
    const companyId = await makeCompany(t.services.database.prisma, { name: 'Before' });
    const rename = 'UPDATE companies SET name = $2 WHERE id = $1::uuid RETURNING name';
    const nameOf = 'SELECT name FROM companies WHERE id = $1::uuid';
    const failed = withTransaction(ctx, async (tx) => {
      await tx.db.company.update({ where: { id: companyId }, data: { name: 'Through Prisma' } });
      expect(await readRows(tx, nameOf, [companyId])).toEqual([{ name: 'Through Prisma' }]);
      expect(await readRows(tx, rename, [companyId, 'Through the driver'])).toEqual([{ name: 'Through the driver' }]);
      expect(await tx.db.company.findUniqueOrThrow({ where: { id: companyId }, select: { name: true } })).toEqual({ name: 'Through the driver' });
      throw new Error('roll back');
    });
    await expect(failed).rejects.toThrow('roll back');
    expect(await readRows(ctx, nameOf, [companyId])).toEqual([{ name: 'Before' }]);
    await withTransaction(ctx, (tx) => readRows(tx, rename, [companyId, 'Committed']));
    expect(await readRows(ctx, nameOf, [companyId])).toEqual([{ name: 'Committed' }]);
  });

  it('runs as the identity of its context: api_anon on public routes, the privileged role elsewhere', async () => {
    const whoAmI = 'SELECT current_user AS role';
    const [privileged] = await readRows<{ role: string }>(ctx, whoAmI, []);
    const [anon] = await t.services.database.asAnon((db) => readRows<{ role: string }>({ ...ctx, db, inTransaction: true }, whoAmI, []));
    expect(anon?.role).toBe('api_anon');
    expect(privileged?.role).not.toBe('api_anon');
    await expect(t.services.database.asAnon((db) => readRows({ ...ctx, db, inTransaction: true }, 'SELECT count(*) FROM api_keys', []))).rejects.toThrow(
      /permission denied/,
    );
  });

  it('anonSql (operations declared database: bare) runs as api_anon too, with nothing of Prisma', async () => {
    const [anon] = await t.services.database.anonSql((sql) => sql.query<{ role: string }>('SELECT current_user AS role', []));
    expect(anon?.role).toBe('api_anon');
    await expect(t.services.database.anonSql((sql) => sql.query('SELECT count(*) FROM api_keys', []))).rejects.toThrow(/permission denied/);
    // The role switch ended with its transaction: the privileged identity is back.
    const [after] = await readRows<{ role: string }>(ctx, 'SELECT current_user AS role', []);
    expect(after?.role).not.toBe('api_anon');
  });

  it('sends one statement per call: joining a transaction costs no round trip', async () => {
    await withTransaction(ctx, async (tx) => {
      log.length = 0;
      await readRows(tx, 'SELECT 1 AS one', []);
      await readRows(tx, 'SELECT 2 AS two', []);
      expect(log).toEqual(['SELECT 1 AS one', 'SELECT 2 AS two']);
    });
  });

  it('refuses once its transaction has ended, and refuses what is not a database client', async () => {
    let escaped: OperationContext | undefined;
    await withTransaction(ctx, async (tx) => {
      await readRows(tx, 'SELECT 1', []);
      escaped = tx;
    });
    await expect(readRows(escaped as OperationContext, 'SELECT 1', [])).rejects.toThrow(/transaction has ended/);
    expect(() => readRows({ ...ctx, db: {} as OperationContext['db'] }, 'SELECT 1', [])).toThrow(/not a database client/);
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('the bare driver in concurrent transactions (PostgreSQL)', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());

  it('each of 20 overlapping transactions reads on its own connection: it sees its own uncommitted write', async () => {
    const ctx = systemContext(t.services);
    const companies = await Promise.all(Array.from({ length: 20 }, () => makeCompany(t.services.database.prisma, { name: 'Unchanged' })));
    const seen = await Promise.all(
      companies.map((companyId, i) =>
        withTransaction(ctx, async (tx) => {
          await tx.db.company.update({ where: { id: companyId }, data: { name: `Mine ${i}` } });
          // Held open while the others start and read: any other connection would still see 'Unchanged'.
          await new Promise((resolve) => setTimeout(resolve, 20));
          return readRows<{ name: string }>(tx, 'SELECT name FROM companies WHERE id = $1::uuid', [companyId]);
        }),
      ),
    );
    expect(seen).toEqual(companies.map((_, i) => [{ name: `Mine ${i}` }]));
  });
});
