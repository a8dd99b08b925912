import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeTenant } from '../../helpers/factories.ts';
import { books, type LineInput } from '../../helpers/ledger.ts';
import { actingContext } from '../../helpers/reports.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { MIGRATIONS_DIR } from '../../../domain/db/migrate.ts';
import { PrismaSql as Prisma } from '../../../domain/db/client.ts';
import { ledgerPage, ledgerPageSql } from '../../../domain/reports/general-ledger.ts';
import { resolvePeriod } from '../../../domain/reports/range.ts';

/**
 * The general ledger read by its index (issue 30): a keyset page over the ledger key written at
 * commit, with the running balance carried in a sealed cursor. Held against an oracle computed
 * from the entries themselves (not the copied key): every page size gives the same lines and
 * balances as one unpaged read, with backdated commits, opening balances and a reversal.
 */

const NOW = new Date('2026-11-21T10:00:00.000Z');
const YEAR = 'from=2026-01-01&to=2026-12-31';
const SPRING = 'from=2026-02-01&to=2026-03-31';

/** Dates committed in this order: later dates first, then earlier ones (backdated), repeated. */
const DATES = ['2026-03-20', '2026-03-01', '2026-01-15', '2026-02-10', '2026-01-03', '2026-03-01', '2026-02-28', '2026-01-15', '2026-02-01', '2026-01-31'];
const SHAPES: string[][] = [
  ['1930', '3001', '2611'],
  ['6110', '2641', '1930'],
  ['1510', '3001'],
  ['6110', '2440'],
  ['2440', '1930'],
];

/** Balanced lines of entry `n`: the first accounts debited, the last credited with their sum. */
function linesOf(n: number): LineInput[] {
  const shape = SHAPES[n % SHAPES.length] as string[];
  const debits = shape.slice(0, -1).map((account, i) => ({ account, debit: 1_000 + ((n * 37 + i * 11) % 89) * 100 }));
  const total = debits.reduce((sum, line) => sum + line.debit, 0);
  return [...debits, { account: shape.at(-1) as string, credit: total }];
}

interface Line {
  account: string;
  date: string;
  voucher: string;
  entry_id: string;
  line: number;
  debit: number;
  credit: number;
  balance: number;
}

engineSuite('general ledger by its index', { app: buildApp, tenant: true, now: () => NOW }, (env, target) => {
  let b: ReturnType<typeof books>;

  /**
   * The ledger from the entries and accounts tables (the order and balances the report promises):
   * opening balances by the account-balance rule, then a window sum in (account, date, series,
   * number, entry, line) order.
   */
  async function oracle(from: string, to: string, account?: string): Promise<Line[]> {
    const rows = await env.services.database.prisma.$queryRawUnsafe<
      (Omit<Line, 'debit' | 'credit' | 'balance'> & Record<'debit' | 'credit' | 'balance', bigint>)[]
    >(
      `WITH lines AS (
         SELECT a.number AS account, e.date, e.series, e.number, e.id AS entry_id, l.line_no, l.debit, l.credit
           FROM journal_lines l
           JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
           JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
          WHERE l.company_id = $1::uuid AND e.status = 'committed' AND ($4::text IS NULL OR a.number = $4))
       SELECT account, date::text AS date, series || number AS voucher, entry_id::text, line_no AS line, debit, credit,
              (SELECT coalesce(sum(o.debit - o.credit), 0) FROM lines o
                WHERE o.account = p.account AND o.date < $2::date AND (o.account < '3' OR o.date >= '2026-01-01'))::bigint
              + sum(debit - credit) OVER (PARTITION BY account ORDER BY date, series, number, entry_id, line_no)::bigint AS balance
         FROM lines p
        WHERE date BETWEEN $2::date AND $3::date
        ORDER BY account, date, series, number, entry_id, line_no`,
      env.tenant.companyId,
      from,
      to,
      account ?? null,
    );
    return rows.map((row) => ({ ...row, debit: Number(row.debit), credit: Number(row.credit), balance: Number(row.balance) }));
  }

  /** Every page of the general ledger for `query` with `limit`, in order. */
  async function walk(query: string, limit: number, from: string | null = null): Promise<{ lines: Line[]; pages: number }> {
    const lines: Line[] = [];
    let cursor: string | null = from;
    let pages = 0;
    do {
      const response = await b.send('GET', `/reports/general-ledger?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status, response.text).toBe(200);
      lines.push(...response.body.data.lines);
      cursor = response.body.meta.pagination.next_cursor;
      pages += 1;
    } while (cursor);
    return { lines, pages };
  }

  const strip = (lines: Line[]) =>
    lines.map(({ account, date, voucher, entry_id, line, debit, credit, balance }) => ({ account, date, voucher, entry_id, line, debit, credit, balance }));

  beforeAll(async () => {
    b = books(env.app, env.tenant.key, env.tenant.companyId);
    expect((await b.createYear('2025-01-01')).status).toBe(201);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
    // 2025, never closed: the opening balances of classes 1-2 in 2026 (3001 starts 2026 at zero).
    await b.book('2025-05-01', [
      { account: '1930', debit: 5_000_000 },
      { account: '2081', credit: 5_000_000 },
    ]);
    await b.book('2025-11-30', [
      { account: '1930', debit: 125_000 },
      { account: '3001', credit: 100_000 },
      { account: '2611', credit: 25_000 },
    ]);
    // Committed out of date order: each entry after the first lands before lines already committed.
    for (let n = 0; n < 40; n += 1) await b.book(DATES[n % DATES.length] as string, linesOf(n));
    const reversed = await b.book('2026-02-10', linesOf(1));
    expect((await b.send('POST', `/journal-entries/${reversed.id}/reverse`, { date: '2026-01-20' })).status).toBe(201);
    // A draft is no line of the ledger.
    expect((await b.draft('2026-02-10', linesOf(2))).status).toBe(201);
  });

  it.each([
    [YEAR, '2026-01-01', '2026-12-31'],
    [SPRING, '2026-02-01', '2026-03-31'],
  ])('%s: every page size gives the unpaged ledger, lines and running balances, as the entries say', async (query, from, to) => {
    const expected = await oracle(from, to);
    expect(expected.length).toBeGreaterThan(60);
    expect(expected.some((line) => line.account === '1930' && line.balance > 5_000_000)).toBe(true);
    const whole = await walk(query, 200);
    expect(whole.pages).toBe(1);
    expect(strip(whole.lines)).toEqual(expected);
    for (const limit of [1, 4, 7]) {
      const paged = await walk(query, limit);
      expect(paged.pages, `limit ${limit}`).toBe(Math.ceil(expected.length / limit));
      expect(strip(paged.lines), `limit ${limit}`).toEqual(expected);
    }
  });

  it('a cursor whose balance, position or scope was altered restarts at page one; a genuine one continues', async () => {
    const first = await b.send('GET', `/reports/general-ledger?${YEAR}&limit=3`);
    const cursor: string = first.body.meta.pagination.next_cursor;
    const second = await b.send('GET', `/reports/general-ledger?${YEAR}&limit=3&cursor=${cursor}`);
    expect(second.body.data.lines[0].balance).toBe(first.body.data.lines[2].balance + second.body.data.lines[0].debit - second.body.data.lines[0].credit);
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const forged = (k: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...payload, k: { ...payload.k, ...k } })).toString('base64url');
    for (const altered of [forged({ balance: String(BigInt(payload.k.balance) + 100_000n) }), forged({ line: payload.k.line + 1 })]) {
      const again = await b.send('GET', `/reports/general-ledger?${YEAR}&limit=3&cursor=${altered}`);
      expect(again.status).toBe(200);
      expect(again.body.data.lines).toEqual(first.body.data.lines);
    }
    // The same cursor for another range or account filter is stale there.
    const spring = await b.send('GET', `/reports/general-ledger?${SPRING}&limit=3`);
    expect((await b.send('GET', `/reports/general-ledger?${SPRING}&limit=3&cursor=${cursor}`)).body.data.lines).toEqual(spring.body.data.lines);
    const ranged = await b.send('GET', `/reports/general-ledger?${YEAR}&account_from=1000&limit=3`);
    expect((await b.send('GET', `/reports/general-ledger?${YEAR}&account_from=1000&limit=3&cursor=${cursor}`)).body.data.lines).toEqual(ranged.body.data.lines);
  });

  it("the migration's backfill writes the same key the commit writes", async () => {
    const db = env.services.database.prisma;
    const keyOf = () =>
      db.$queryRawUnsafe<Record<string, unknown>[]>(
        `SELECT entry_id, line_no, fiscal_year_id, account_number, entry_date::text, series, entry_number FROM journal_lines
          WHERE company_id = $1::uuid ORDER BY entry_id, line_no`,
        env.tenant.companyId,
      );
    const written = await keyOf();
    expect(written.filter((row) => row.entry_number !== null).length).toBeGreaterThan(100);
    const sql = readFileSync(join(MIGRATIONS_DIR, '20261129500000_general_ledger_key', 'migration.sql'), 'utf8');
    const backfill = /ALTER TABLE journal_lines DISABLE TRIGGER[\s\S]*?ENABLE TRIGGER journal_lines_guard;/.exec(sql)?.[0];
    if (!backfill) throw new Error('the migration has no backfill block');
    // The lines as they were before the migration: no key at all.
    await db.$executeRawUnsafe('ALTER TABLE journal_lines DISABLE TRIGGER journal_lines_guard');
    await db.$executeRawUnsafe(
      'UPDATE journal_lines SET fiscal_year_id = NULL, account_number = NULL, entry_date = NULL, series = NULL, entry_number = NULL WHERE company_id = $1::uuid',
      env.tenant.companyId,
    );
    await db.$executeRawUnsafe('ALTER TABLE journal_lines ENABLE TRIGGER journal_lines_guard');
    expect((await keyOf()).every((row) => row.entry_number === null)).toBe(true);
    for (const statement of backfill.split(/;\s*\n/).filter((text) => text.trim() !== '')) await db.$executeRawUnsafe(statement.replace(/;\s*$/, ''));
    expect(await keyOf()).toEqual(written);
  });

  it.skipIf(target !== 'postgres')('PostgreSQL reads page N by the ledger index: no sort, only the page’s rows', async () => {
    const db = env.services.database.prisma;
    const tenant = await makeTenant(db);
    const other = books(env.app, tenant.key, tenant.companyId);
    const year = await other.createYear('2026-01-01');
    expect(year.status).toBe(201);
    // 8,000 committed lines: drafts by generate_series, committed by one UPDATE through the guard.
    await db.$executeRawUnsafe(
      `WITH accounts AS (
         SELECT array_agg(id ORDER BY number) FILTER (WHERE number IN ('1930', '2440', '4010', '6110')) AS ids FROM accounts WHERE company_id = $1::uuid),
       drafts AS (
         INSERT INTO journal_entries (company_id, date, description)
         SELECT $1::uuid, '2026-01-01'::date + (g % 365), 'Generated ' || g FROM generate_series(1, 4000) g RETURNING id)
       INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit)
       SELECT $1::uuid, d.id, k, a.ids[1 + (abs(hashtext(d.id::text)) + k) % 4], CASE k WHEN 1 THEN 500 ELSE 0 END, CASE k WHEN 2 THEN 500 ELSE 0 END
         FROM drafts d CROSS JOIN accounts a CROSS JOIN generate_series(1, 2) k`,
      tenant.companyId,
    );
    await db.$executeRawUnsafe(
      `UPDATE journal_entries e SET status = 'committed', number = n.rn, fiscal_year_id = $2::uuid, period_id = n.period_id, committed_at = now()
         FROM (SELECT j.id, p.id AS period_id, row_number() OVER (ORDER BY j.date, j.id) AS rn
                 FROM journal_entries j JOIN periods p ON p.company_id = j.company_id AND j.date BETWEEN p.start_date AND p.end_date
                WHERE j.company_id = $1::uuid) n
        WHERE e.id = n.id`,
      tenant.companyId,
      year.body.data.id,
    );
    await db.$executeRawUnsafe('ANALYZE journal_lines');
    await db.$executeRawUnsafe('ANALYZE journal_entries');
    const ctx = actingContext(env.services);
    const period = await resolvePeriod(ctx, tenant.companyId, { fiscal_year_id: year.body.data.id });
    // Page N: a position in the middle of the ledger.
    const [middle] = await db.$queryRawUnsafe<{ account: string; date: string; series: string; number: number; entry: string; line: number }[]>(
      `SELECT account_number AS account, entry_date::text AS date, series, entry_number AS number, entry_id::text AS entry, line_no AS line
         FROM journal_lines WHERE company_id = $1::uuid ORDER BY account_number, entry_date, series, entry_number, entry_id, line_no OFFSET 5000 LIMIT 1`,
      tenant.companyId,
    );
    if (!middle) throw new Error('no generated lines');
    const page = await ledgerPage(ctx, tenant.companyId, period, {}, middle, 51);
    expect(page).toHaveLength(51);
    const [plan] = await db.$queryRaw<{ 'QUERY PLAN': unknown }[]>(
      Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${ledgerPageSql(tenant.companyId, period, {}, middle, 51, null)}`,
    );
    const nodes: Record<string, unknown>[] = [];
    const visit = (node: Record<string, unknown>) => {
      nodes.push(node);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
    };
    const root = (plan?.['QUERY PLAN'] as { Plan: Record<string, unknown> }[] | undefined)?.[0]?.Plan;
    if (!root) throw new Error(`no plan: ${JSON.stringify(plan)}`);
    visit(root);
    const types = nodes.map((node) => node['Node Type']);
    expect(
      types.filter((type) => String(type).includes('Sort')),
      JSON.stringify(types),
    ).toEqual([]);
    const ledger = nodes.filter((node) => node['Index Name'] === 'journal_lines_ledger_order');
    expect(
      ledger.map((node) => node['Node Type']),
      JSON.stringify(types),
    ).toEqual(['Index Scan']);
    // It reads the page's rows (and the one that says there is more), not the 5,000 before them.
    expect(ledger[0]?.['Actual Rows']).toBe(51);
  });

  it('a backdated commit between two pages: the walk goes on from what it showed; a new walk includes it', async () => {
    const query = `${YEAR}&account=1930`;
    const first = await b.send('GET', `/reports/general-ledger?${query}&limit=4`);
    const shown: Line[] = first.body.data.lines;
    // Before every line shown so far: dated on the first day of the year.
    const backdated = await b.book('2026-01-01', [
      { account: '1930', debit: 333_300 },
      { account: '3001', credit: 333_300 },
    ]);
    const rest = await walk(query, 4, first.body.meta.pagination.next_cursor);
    const continued = [...shown, ...rest.lines];
    expect(continued.some((line) => line.entry_id === backdated.id)).toBe(false);
    for (let i = 1; i < continued.length; i += 1) {
      const [before, line] = [continued[i - 1] as Line, continued[i] as Line];
      expect(line.balance, `${line.voucher}/${line.line}`).toBe(before.balance + line.debit - line.credit);
    }
    const fresh = await walk(query, 4);
    expect(fresh.lines.some((line) => line.entry_id === backdated.id)).toBe(true);
    expect(strip(fresh.lines)).toEqual(await oracle('2026-01-01', '2026-12-31', '1930'));
    expect((fresh.lines.at(-1) as Line).balance - (continued.at(-1) as Line).balance).toBe(333_300);
  });
});
