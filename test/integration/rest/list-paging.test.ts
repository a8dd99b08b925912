import { expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { call } from '../../helpers/http.ts';
import { books } from '../../helpers/ledger.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { MAX_PAGE_SIZE, encodeKeysetCursor } from '../../../domain/kernel/pagination.ts';

/**
 * Issue 29: every list but the webhooks list is a cursor list with the common `limit` and
 * `cursor` and its own filters. Each list is walked page by page on both engines, with rows that
 * tie on the leading sort key, and must give every row exactly once, in the list's order.
 */

type Row = Record<string, unknown> & { id: string };

const YEARS = ['2020', '2021', '2022', '2023', '2024', '2025'];
/** Months with salary runs: three cancelled and one draft run each, all created in one statement (equal created_at). */
const RUN_MONTHS = ['2025-01-01', '2025-02-01', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01'];

engineSuite('cursor lists: accounts, fiscal years, periods, salary runs, AGIs, VAT returns', { app: (services) => buildApp(services), tenant: true }, (t) => {
  const base = () => `/api/v1/companies/${t.tenant.companyId}`;
  const get = (path: string) => call(t.app, 'GET', `${base()}${path}`, { key: t.tenant.key });
  const db = () => t.services.database.prisma;

  /** Follows next_cursor from the first page to the last; fails on a page over the limit or a loop. */
  async function walk(path: string, field: string, limit: number, query: Record<string, string> = {}): Promise<Row[]> {
    const seen: Row[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const search = new URLSearchParams({ ...query, limit: String(limit), ...(cursor && { cursor }) });
      const response = await get(`${path}?${search}`);
      expect(response.status, response.text).toBe(200);
      const rows = response.body.data[field] as Row[];
      expect(rows.length).toBeLessThanOrEqual(limit);
      seen.push(...rows);
      const { has_more, next_cursor } = response.body.meta.pagination;
      if (!has_more) {
        expect(next_cursor).toBeNull();
        return seen;
      }
      expect(rows.length).toBe(limit);
      cursor = next_cursor;
    }
    throw new Error(`${path}: pagination did not terminate`);
  }

  /** Walks with a small and the largest page size; both give `expected` ids, each once. */
  async function expectWalk(path: string, field: string, expected: string[], query: Record<string, string> = {}) {
    expect(expected.length).toBeGreaterThan(3);
    for (const limit of [3, MAX_PAGE_SIZE]) {
      const ids = (await walk(path, field, limit, query)).map((row) => row.id);
      expect(new Set(ids).size, `${path} limit ${limit}`).toBe(ids.length);
      expect(ids, `${path} limit ${limit}`).toEqual(expected);
    }
  }

  const ids = async (sql: string, ...values: unknown[]): Promise<string[]> =>
    (await db().$queryRawUnsafe<{ id: string }[]>(sql, t.tenant.companyId, ...values)).map((row) => row.id);

  it('seeds: six fiscal years through the API, runs, declarations and returns as stored rows', async () => {
    const b = books(t.app, t.tenant.key, t.tenant.companyId);
    for (const year of YEARS) expect((await b.createYear(`${year}-01-01`)).status).toBe(201);
    const company = t.tenant.companyId;
    await db().$executeRawUnsafe(
      `INSERT INTO salary_runs (company_id, period, pay_date, status, gross, tax, contributions, net, cancelled_at)
       SELECT $1::uuid, m::date, m::date + 24, CASE WHEN n = 4 THEN 'draft' ELSE 'cancelled' END, 0, 0, 0, 0,
              CASE WHEN n = 4 THEN NULL ELSE now() END
         FROM unnest($2::text[]) m, generate_series(1, 4) n`,
      company,
      RUN_MONTHS,
    );
    await db().$executeRawUnsafe(
      `INSERT INTO agi_declarations (company_id, period, version, status, gross, tax, contributions, individuals, submitted_at)
       SELECT $1::uuid, m::date, v, CASE WHEN v = 3 THEN 'generated' ELSE 'submitted' END, 0, 0, 0, '[]'::jsonb,
              CASE WHEN v = 3 THEN NULL ELSE now() END
         FROM unnest($2::text[]) m, generate_series(1, 3) v`,
      company,
      RUN_MONTHS,
    );
    // Monthly and quarterly returns: the quarter and its first month start on the same day.
    await db().$executeRawUnsafe(
      `INSERT INTO vat_returns (company_id, period_start, period_end, status, boxes, output_vat, input_vat, net_vat, version, submitted_at)
       SELECT $1::uuid, s::date, (s::date + make_interval(months => len))::date - 1, CASE WHEN v = 2 THEN 'generated' ELSE 'submitted' END,
              '[]'::jsonb, 0, 0, 0, v, CASE WHEN v = 2 THEN NULL ELSE now() END
         FROM unnest($2::text[]) s, unnest(ARRAY[1, 3]) len, generate_series(1, 2) v`,
      company,
      ['2025-01-01', '2025-04-01', '2025-07-01'],
    );
  });

  it('accounts: every account once, in number order, and filtered by range, type and active', async () => {
    await expectWalk('/accounts', 'accounts', await ids('SELECT id FROM accounts WHERE company_id = $1::uuid ORDER BY number'));
    await expectWalk(
      '/accounts',
      'accounts',
      await ids(`SELECT id FROM accounts WHERE company_id = $1::uuid AND type = 'asset' AND number BETWEEN '1000' AND '1999' ORDER BY number`),
      { type: 'asset', number_from: '1000', number_to: '1999' },
    );
    expect((await get('/accounts?active=false')).body.data.accounts).toEqual([]);
  });

  it('fiscal years and periods: every one once, in date order; periods by year, status and overlapping date range', async () => {
    await expectWalk('/fiscal-years', 'fiscal_years', await ids('SELECT id FROM fiscal_years WHERE company_id = $1::uuid ORDER BY start_date'));
    const overlapping = await walk('/fiscal-years', 'fiscal_years', 2, { from: '2021-06-30', to: '2023-01-01' });
    expect(overlapping.map((year) => year.start_date)).toEqual(['2021-01-01', '2022-01-01', '2023-01-01']);
    expect(await walk('/fiscal-years', 'fiscal_years', 2, { status: 'closed' })).toEqual([]);

    await expectWalk('/periods', 'periods', await ids('SELECT id FROM periods WHERE company_id = $1::uuid ORDER BY start_date'));
    // A date range gives the periods it touches: mid-March to the first of May is March-May.
    const spring = await walk('/periods', 'periods', 2, { from: '2024-03-15', to: '2024-05-01' });
    expect(spring.map((period) => period.start_date)).toEqual(['2024-03-01', '2024-04-01', '2024-05-01']);
    // `to` alone: everything up to it.
    expect((await walk('/periods', 'periods', 50, { to: '2020-02-29' })).map((period) => period.start_date)).toEqual(['2020-01-01', '2020-02-01']);
    const year2022 = (await walk('/fiscal-years', 'fiscal_years', 50, { from: '2022-05-05', to: '2022-05-05' }))[0]!;
    await expectWalk(
      '/periods',
      'periods',
      await ids('SELECT id FROM periods WHERE company_id = $1::uuid AND fiscal_year_id = $2::uuid ORDER BY start_date', year2022.id),
      { fiscal_year_id: year2022.id, status: 'open' },
    );
  });

  it('salary runs: newest month first, runs of one month (same created_at) each once; by status and months', async () => {
    await expectWalk(
      '/salary-runs',
      'salary_runs',
      await ids('SELECT id FROM salary_runs WHERE company_id = $1::uuid ORDER BY period DESC, created_at DESC, id DESC'),
    );
    const drafts = await walk('/salary-runs', 'salary_runs', 2, { status: 'draft' });
    expect(drafts.map((run) => run.period)).toEqual(['2025-06', '2025-05', '2025-04', '2025-03', '2025-02', '2025-01']);
    const spring = await walk('/salary-runs', 'salary_runs', 3, { from: '2025-03', to: '2025-04' });
    expect(spring).toHaveLength(8);
    expect(new Set(spring.map((run) => run.period))).toEqual(new Set(['2025-03', '2025-04']));
  });

  it('AGIs: newest month and version first, each once; by month and month range', async () => {
    await expectWalk('/agis', 'agis', await ids('SELECT id FROM agi_declarations WHERE company_id = $1::uuid ORDER BY period DESC, version DESC'));
    const march = await walk('/agis', 'agis', 2, { period: '2025-03' });
    expect(march.map((agi) => [agi.period, agi.version])).toEqual([
      ['2025-03', 3],
      ['2025-03', 2],
      ['2025-03', 1],
    ]);
    expect((await walk('/agis', 'agis', 4, { from: '2025-05' })).map((agi) => agi.period)).toEqual([
      '2025-06',
      '2025-06',
      '2025-06',
      '2025-05',
      '2025-05',
      '2025-05',
    ]);
  });

  it('VAT returns: newest period first (a quarter before its first month), each version once; by status and overlapping range', async () => {
    await expectWalk(
      '/vat-returns',
      'vat_returns',
      await ids('SELECT id FROM vat_returns WHERE company_id = $1::uuid ORDER BY period_start DESC, period_end DESC, version DESC'),
    );
    const generated = await walk('/vat-returns', 'vat_returns', 2, { status: 'generated' });
    expect(generated).toHaveLength(6);
    expect(generated.every((vat) => vat.status === 'generated')).toBe(true);
    const may = await walk('/vat-returns', 'vat_returns', 2, { from: '2025-05-10', to: '2025-05-20' });
    expect(may.map((vat) => [vat.period_start, vat.period_end, vat.version])).toEqual([
      ['2025-04-01', '2025-06-30', 2],
      ['2025-04-01', '2025-06-30', 1],
    ]);
  });

  it('refuses unknown parameters, naming the accepted ones, and out-of-range limits and malformed filters with 400', async () => {
    for (const path of ['/accounts', '/fiscal-years', '/periods', '/salary-runs', '/agis', '/vat-returns']) {
      const unknown = await get(`${path}?page=2`);
      expect(unknown.status, path).toBe(400);
      expect(unknown.body.error.code, path).toBe('VALIDATION_ERROR');
      expect(unknown.text, path).toContain('limit');
      for (const limit of ['0', String(MAX_PAGE_SIZE + 1), 'ten']) expect((await get(`${path}?limit=${limit}`)).status, `${path} limit=${limit}`).toBe(400);
    }
    expect((await get('/periods?from=2024-13-01')).status).toBe(400);
    expect((await get('/fiscal-years?status=archived')).status).toBe(400);
    expect((await get('/salary-runs?from=2025-1')).status).toBe(400);
    expect((await get('/agis?to=2025-06-01')).status).toBe(400);
    expect((await get('/vat-returns?status=draft')).status).toBe(400);
  });

  it('restarts at page one for a malformed, foreign or impossible cursor (spec Errors 4)', async () => {
    const first = (await get('/periods?limit=4')).body.data.periods.map((p: Row) => p.id);
    const foreign = encodeKeysetCursor('accounts', { number: '1930' });
    const impossible = encodeKeysetCursor('periods', { start: '2024-02-30' });
    for (const cursor of ['not-a-cursor', 'eyJ2IjoxfQ', foreign, impossible]) {
      const response = await get(`/periods?limit=4&cursor=${encodeURIComponent(cursor)}`);
      expect(response.status, cursor).toBe(200);
      expect(
        response.body.data.periods.map((p: Row) => p.id),
        cursor,
      ).toEqual(first);
    }
  });
});
