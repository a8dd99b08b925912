import { expect, it } from 'vitest';
import { buildApp } from '../../../cli/build-app.ts';
import { CHECK_VIOLATION, sqlState } from '../../../domain/db/errors.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { books } from '../../helpers/ledger.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');

/**
 * Migration 20261201000000: the commit's rules run once per UPDATE statement over all the entries it
 * commits (journal_entries_commit), and line inserts are checked once per statement. The same rules
 * as per entry: any unbalanced entry refuses the whole statement, every committed line carries its
 * entry's ledger key, committed_debit grows by exactly the committed debits, and a committed entry's
 * lines take no new line and no other key.
 */
engineSuite('the commit rules, one statement for many entries', { now: () => NOW, tenant: true, app: (services) => buildApp(services) }, (t) => {
  const db = () => t.services.database.prisma;
  let yearId = '';

  /** A draft on 2026-03-10 with a debit on 1930 and a credit on 3001 (unbalanced when they differ). */
  async function draft(debit: number, credit: number): Promise<string> {
    if (!yearId) {
      const year = await books(t.app, t.tenant.key, t.tenant.companyId).createYear('2026-01-01');
      expect(year.status, year.text).toBe(201);
      yearId = year.body.data.id;
    }
    const [entry] = await db().$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO journal_entries (company_id, date, description) VALUES ($1::uuid, '2026-03-10', 'set-wise') RETURNING id::text`,
      t.tenant.companyId,
    );
    await db().$executeRawUnsafe(
      `INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit)
       SELECT $1::uuid, $2::uuid, l.no, a.id, l.debit, l.credit
         FROM (VALUES (1, '1930', $3::bigint, 0::bigint), (2, '3001', 0::bigint, $4::bigint)) AS l(no, account, debit, credit)
         JOIN accounts a ON a.company_id = $1::uuid AND a.number = l.account`,
      t.tenant.companyId,
      entry!.id,
      debit,
      credit,
    );
    return entry!.id;
  }

  /** Commits `ids` in one UPDATE, numbered from `first` in series A. */
  const commit = (ids: string[], first: number) =>
    db().$executeRawUnsafe(
      `UPDATE journal_entries e SET status = 'committed', series = 'A', number = $3::int + v.n - 1, fiscal_year_id = $4::uuid, committed_at = now(),
              period_id = (SELECT id FROM periods p WHERE p.company_id = e.company_id AND e.date BETWEEN p.start_date AND p.end_date)
         FROM unnest($2::uuid[]) WITH ORDINALITY AS v(id, n)
        WHERE e.company_id = $1::uuid AND e.id = v.id`,
      t.tenant.companyId,
      ids,
      first,
      yearId,
    );
  const committedDebit = async () =>
    (await db().$queryRawUnsafe<{ debit: bigint }[]>('SELECT committed_debit AS debit FROM companies WHERE id = $1::uuid', t.tenant.companyId))[0]!.debit;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => ({ state: sqlState(error), message: String((error as Error).message) }),
    );

  it('refuses the whole statement when one of its entries does not balance, and commits nothing', async () => {
    const before = await committedDebit();
    const balanced = await draft(500, 500);
    const unbalanced = await draft(700, 600);
    const refused = await refusal(commit([balanced, unbalanced], 9001));
    expect(refused?.state).toBe(CHECK_VIOLATION);
    expect(refused?.message).toContain(`journal entry ${unbalanced} does not balance`);
    const statuses = await db().$queryRawUnsafe<{ status: string }[]>('SELECT status FROM journal_entries WHERE id = ANY($1::uuid[])', [balanced, unbalanced]);
    expect(statuses.map((row) => row.status)).toEqual(['draft', 'draft']);
    expect(await committedDebit()).toBe(before);
  });

  it('commits several entries at once: each line keyed as its entry, committed_debit up by their debits; a wrong early key is rewritten', async () => {
    const before = await committedDebit();
    const ids = [await draft(1_000, 1_000), await draft(2_500, 2_500), await draft(40, 40)];
    // A key written before the commit (as an SIE batch writes it) that is not the entry's own.
    await db().$executeRawUnsafe(
      `UPDATE journal_lines SET fiscal_year_id = $2::uuid, account_number = '9999', entry_date = '2026-01-01', series = 'Z', entry_number = 1 WHERE entry_id = $1::uuid`,
      ids[2],
      yearId,
    );
    expect(await commit(ids, 9101)).toBe(3);
    expect(await committedDebit()).toBe(before + 3_540n);
    const keys = await db().$queryRawUnsafe<{ entry: string; right: boolean }[]>(
      `SELECT l.entry_id::text AS entry,
              (l.fiscal_year_id, l.account_number, l.entry_date, l.series, l.entry_number) IS NOT DISTINCT FROM (e.fiscal_year_id, a.number, e.date, e.series, e.number) AS right
         FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
         JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
        WHERE l.entry_id = ANY($1::uuid[])`,
      ids,
    );
    expect(keys).toHaveLength(6);
    expect(keys.every((row) => row.right)).toBe(true);
  });

  it("takes no new line into a committed entry, and no key but the line's own", async () => {
    const [id] = [await draft(300, 300)];
    expect(await commit([id!], 9201)).toBe(1);
    const added = await refusal(
      db().$executeRawUnsafe(
        `INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit)
         SELECT $1::uuid, $2::uuid, 3, id, 0, 1 FROM accounts WHERE company_id = $1::uuid AND number = '3001'`,
        t.tenant.companyId,
        id,
      ),
    );
    expect(added).toMatchObject({ state: CHECK_VIOLATION });
    expect(added?.message).toContain(`journal entry ${id} is committed; its lines cannot change`);
    const rekeyed = await refusal(db().$executeRawUnsafe(`UPDATE journal_lines SET entry_number = 1 WHERE entry_id = $1::uuid`, id));
    expect(rekeyed).toMatchObject({ state: CHECK_VIOLATION });
    // Its own key again changes nothing and passes.
    expect(await db().$executeRawUnsafe(`UPDATE journal_lines SET entry_number = 9201 WHERE entry_id = $1::uuid`, id)).toBe(2);
  });
});
