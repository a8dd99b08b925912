import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { books, type LineInput } from '../../helpers/ledger.ts';
import { actingContext, sqlSums } from '../../helpers/reports.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { keysetPages, REPORT_PAGE_SIZE } from '../../../domain/reports/keyset.ts';
import { keyOfRow, ledgerPage, type LedgerRow } from '../../../domain/reports/general-ledger.ts';
import { resolvePeriod } from '../../../domain/reports/range.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const FEBRUARY = 'from=2026-02-01&to=2026-02-28';

/**
 * 52 entries of 50 lines on two dates: 2,600 committed lines whose sort keys collide — the same
 * account and the same date across every page boundary — with amounts that differ per line, so a
 * line read twice or skipped changes a total.
 */
const ENTRIES = 52;
const LINES_PER_SIDE = 25;
const amountOf = (entry: number, line: number): number => 100 + ((entry * 31 + line * 7) % 997) * 13;
function collidingEntry(entry: number): LineInput[] {
  const [debitAccount, creditAccount] = entry % 2 === 0 ? ['6110', '1930'] : ['1510', '3001'];
  const lines: LineInput[] = [];
  for (let line = 0; line < LINES_PER_SIDE; line += 1) {
    lines.push({ account: debitAccount, debit: amountOf(entry, line) });
    lines.push({ account: creditAccount, credit: amountOf(entry, line) });
  }
  return lines;
}

describe.each(DB_TARGETS)('reports over the ledger (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let other: Tenant;
  let b: ReturnType<typeof books>;
  let year2026: string;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    other = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    expect((await b.createYear('2025-01-01')).status).toBe(201);
    const created = await b.createYear('2026-01-01');
    year2026 = created.body.data.id;
    // 2025, never closed: share capital, a sale and a cost.
    await b.book('2025-03-01', [
      { account: '1930', debit: 5_000_000 },
      { account: '2081', credit: 5_000_000 },
    ]);
    await b.book('2025-06-15', [
      { account: '1930', debit: 250_000 },
      { account: '3001', credit: 200_000 },
      { account: '2611', credit: 50_000 },
    ]);
    await b.book('2025-09-30', [
      { account: '6110', debit: 80_000 },
      { account: '2641', debit: 20_000 },
      { account: '1930', credit: 100_000 },
    ]);
    // January 2026: before the February range.
    await b.book('2026-01-20', [
      { account: '1510', debit: 125_000 },
      { account: '3001', credit: 100_000 },
      { account: '2611', credit: 25_000 },
    ]);
    for (let entry = 0; entry < ENTRIES; entry += 1) await b.book(entry < ENTRIES / 2 ? '2026-02-10' : '2026-02-11', collidingEntry(entry));
    // A reversal counts (both entries are committed); a draft does not.
    const reversed = await b.book('2026-02-11', [
      { account: '6110', debit: 777 },
      { account: '1930', credit: 777 },
    ]);
    const reversal = await b.send('POST', `/journal-entries/${reversed.id}/reverse`, { date: '2026-02-12' });
    expect(reversal.status, reversal.text).toBe(201);
    expect(
      (
        await b.draft('2026-02-10', [
          { account: '6110', debit: 99_999_999 },
          { account: '1930', credit: 99_999_999 },
        ])
      ).status,
    ).toBe(201);
  });
  afterAll(async () => t?.close());

  const sums = (where: Parameters<typeof sqlSums>[2]) => sqlSums(t.services.database.prisma, tenant.companyId, where);

  describe('exact totals across 1000-row pages', () => {
    it('has more than 2,500 committed lines in February, sharing accounts and dates', async () => {
      const february = await sums({ from: '2026-02-01', to: '2026-02-28' });
      expect(Number(february.lines)).toBeGreaterThanOrEqual(2_500);
    });

    it('account balances: every total and every account equals a single SQL SUM', async () => {
      const response = await b.send('GET', `/reports/account-balances?${FEBRUARY}`);
      expect(response.status, response.text).toBe(200);
      const { accounts, totals, period } = response.body.data;
      expect(period).toEqual({ from: '2026-02-01', to: '2026-02-28', fiscal_year: { id: year2026, start_date: '2026-01-01', end_date: '2026-12-31' } });
      const february = await sums({ from: '2026-02-01', to: '2026-02-28' });
      expect(totals.period_debit).toBe(Number(february.debit));
      expect(totals.period_credit).toBe(Number(february.credit));
      expect(totals.period_debit).toBe(totals.period_credit);
      for (const row of accounts) {
        const movement = await sums({ from: '2026-02-01', to: '2026-02-28', accountFrom: row.account, accountTo: row.account });
        expect([row.account, row.period_debit, row.period_credit]).toEqual([row.account, Number(movement.debit), Number(movement.credit)]);
        // Opening: all history for classes 1-2 (the unclosed 2025 included), this fiscal year only for 3-8.
        const before = await sums({ from: row.account < '3' ? undefined : '2026-01-01', to: '2026-01-31', accountFrom: row.account, accountTo: row.account });
        expect(row.opening_balance, row.account).toBe(Number(before.debit - before.credit));
        expect(row.closing_balance).toBe(row.opening_balance + row.period_debit - row.period_credit);
      }
      const byAccount = Object.fromEntries(accounts.map((row: { account: string }) => [row.account, row]));
      expect(byAccount['1930'].opening_balance).toBe(5_150_000);
      expect(byAccount['3001'].opening_balance).toBe(-100_000);
    });

    it('trial balance: the same totals, class subtotals that add up, balanced', async () => {
      const response = await b.send('GET', `/reports/trial-balance?${FEBRUARY}`);
      expect(response.status, response.text).toBe(200);
      const { totals, classes, balanced } = response.body.data;
      const february = await sums({ from: '2026-02-01', to: '2026-02-28' });
      expect([totals.period_debit, totals.period_credit]).toEqual([Number(february.debit), Number(february.credit)]);
      expect(balanced).toBe(true);
      for (const key of ['opening_balance', 'period_debit', 'period_credit', 'closing_balance'] as const) {
        expect(classes.reduce((sum: number, c: Record<string, number>) => sum + (c[key] as number), 0)).toBe(totals[key]);
      }
      for (const c of classes) {
        const movement = await sums({ from: '2026-02-01', to: '2026-02-28', accountFrom: `${c.class}000`, accountTo: `${c.class}999` });
        expect(c.period_debit).toBe(Number(movement.debit));
      }
    });

    it('income statement: the result equals one SQL SUM of classes 3-8', async () => {
      const response = await b.send('GET', `/reports/income-statement?${FEBRUARY}`);
      expect(response.status, response.text).toBe(200);
      const results = await sums({ from: '2026-02-01', to: '2026-02-28', accountFrom: '3000' });
      expect(response.body.data.result).toBe(Number(results.credit - results.debit));
      const sectionTotal = response.body.data.sections.reduce((sum: number, section: { total: number }) => sum + section.total, 0);
      expect(sectionTotal).toBe(response.body.data.result);
    });

    it('balance sheet: assets equal one SQL SUM of class 1, and equity + liabilities + result', async () => {
      const response = await b.send('GET', `/reports/balance-sheet?${FEBRUARY}`);
      expect(response.status, response.text).toBe(200);
      const { totals, balanced, equity_and_liabilities: side } = response.body.data;
      const assets = await sums({ to: '2026-02-28', accountTo: '1999' });
      expect(totals.assets).toBe(Number(assets.debit - assets.credit));
      const earlier = await sums({ to: '2025-12-31', accountFrom: '3000' });
      expect(side.result.earlier_years).toBe(Number(earlier.credit - earlier.debit));
      expect(side.result.earlier_years).toBe(120_000);
      const year = await sums({ from: '2026-01-01', to: '2026-02-28', accountFrom: '3000' });
      expect(side.result.fiscal_year).toBe(Number(year.credit - year.debit));
      expect(totals.assets).toBe(totals.equity + totals.liabilities + totals.result);
      expect(balanced).toBe(true);
    });

    it('reads in keyset pages of exactly 1000 rows that neither repeat nor skip a line', async () => {
      const ctx = actingContext(t.services);
      const period = await resolvePeriod(ctx, tenant.companyId, { from: '2026-02-01', to: '2026-02-28' });
      const sizes: number[] = [];
      const seen = new Set<string>();
      let debit = 0n;
      for await (const page of keysetPages<LedgerRow, ReturnType<typeof keyOfRow>>(
        (after, limit) => ledgerPage(ctx, tenant.companyId, period, {}, after, limit),
        keyOfRow,
      )) {
        sizes.push(page.length);
        for (const row of page) {
          const id = `${row.entry_id}/${row.line_no}`;
          expect(seen.has(id), id).toBe(false);
          seen.add(id);
          debit += row.debit;
        }
      }
      const february = await sums({ from: '2026-02-01', to: '2026-02-28' });
      expect(seen.size).toBe(Number(february.lines));
      expect(debit).toBe(february.debit);
      expect(sizes.slice(0, -1).every((size) => size === REPORT_PAGE_SIZE)).toBe(true);
      expect(sizes.length).toBe(Math.ceil(seen.size / REPORT_PAGE_SIZE));
    });
  });

  describe('general ledger cursor', () => {
    /** Walks every page with the given limit; returns the lines in order. */
    async function walk(query: string, limit: number) {
      const lines: Record<string, any>[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await b.send('GET', `/reports/general-ledger?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(response.status, response.text).toBe(200);
        expect(response.body.data.lines.length).toBeLessThanOrEqual(limit);
        lines.push(...response.body.data.lines);
        cursor = response.body.meta.pagination.has_more ? response.body.meta.pagination.next_cursor : null;
        pages += 1;
      } while (cursor);
      return { lines, pages };
    }

    it.each([200, 173])('limit %i: neither skips nor repeats a line; running balances continue across pages', async (limit) => {
      const { lines, pages } = await walk(FEBRUARY, limit);
      const february = await sums({ from: '2026-02-01', to: '2026-02-28' });
      expect(pages).toBe(Math.ceil(Number(february.lines) / limit));
      const ids = lines.map((line) => `${line.entry_id}/${line.line}`);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(Number(february.lines));
      expect(lines.reduce((sum, line) => sum + line.debit, 0)).toBe(Number(february.debit));
      expect(lines.reduce((sum, line) => sum + line.credit, 0)).toBe(Number(february.credit));

      const balances = (await b.send('GET', `/reports/account-balances?${FEBRUARY}`)).body.data.accounts;
      const opening = new Map(balances.map((row: { account: string; opening_balance: number }) => [row.account, row.opening_balance]));
      const last = new Map<string, number>();
      let previous: Record<string, any> | undefined;
      for (const line of lines) {
        if (previous) {
          expect(line.account >= previous.account).toBe(true);
          if (line.account === previous.account) expect(line.date >= previous.date).toBe(true);
        }
        const before = last.get(line.account) ?? (opening.get(line.account) as number);
        expect(line.balance).toBe(before + line.debit - line.credit);
        last.set(line.account, line.balance);
        previous = line;
      }
      // Every account that moved ends its lines on its closing balance; the others have no lines.
      for (const row of balances) expect(last.get(row.account), row.account).toBe(row.period_debit + row.period_credit > 0 ? row.closing_balance : undefined);
    });

    it('filters by one account or a range; a foreign cursor restarts at page one', async () => {
      const bank = await walk(`${FEBRUARY}&account=1930`, 200);
      const bankSums = await sums({ from: '2026-02-01', to: '2026-02-28', accountFrom: '1930', accountTo: '1930' });
      expect(bank.lines.length).toBe(Number(bankSums.lines));
      expect(bank.lines.every((line) => line.account === '1930')).toBe(true);
      const range = await b.send('GET', `/reports/general-ledger?${FEBRUARY}&account_from=3000&account_to=8999&limit=5`);
      expect(range.body.data.lines.every((line: { account: string }) => line.account >= '3000')).toBe(true);
      const garbage = await b.send('GET', `/reports/general-ledger?${FEBRUARY}&limit=5&cursor=not-a-cursor`);
      expect(garbage.status).toBe(200);
      const first = await b.send('GET', `/reports/general-ledger?${FEBRUARY}&limit=5`);
      expect(garbage.body.data.lines).toEqual(first.body.data.lines);
      const mixed = await b.send('GET', `/reports/general-ledger?${FEBRUARY}&account=1930&account_from=1000`);
      expect(mixed.status).toBe(400);
      expect(mixed.body.error.details[0].path).toBe('query.account_from');
    });
  });

  describe('dates, errors and access', () => {
    it('takes a fiscal year by id, defaults to the year containing today, and refuses unclear ranges', async () => {
      const byYear = await b.send('GET', `/reports/account-balances?fiscal_year_id=${year2026}`);
      expect(byYear.body.data.period).toMatchObject({ from: '2026-01-01', to: '2026-12-31' });
      const defaulted = await b.send('GET', '/reports/account-balances');
      expect(defaulted.body.data).toEqual(byYear.body.data);
      const cases: [string, number, string][] = [
        [`fiscal_year_id=${year2026}&from=2026-01-01&to=2026-01-31`, 400, 'query.fiscal_year_id'],
        ['from=2026-01-01', 400, 'query.to'],
        ['from=2026-03-01&to=2026-02-01', 400, 'query.to'],
        ['from=2025-12-01&to=2026-01-31', 400, 'query.to'],
        ['from=2024-01-01&to=2024-01-31', 422, 'query.from'],
        ['from=2026-02-30&to=2026-03-01', 400, 'query.from'],
        ['period=2026', 400, 'query'],
      ];
      for (const [query, status, path] of cases) {
        const response = await b.send('GET', `/reports/balance-sheet?${query}`);
        expect(response.status, query).toBe(status);
        expect(response.body.error.details.map((d: { path: string }) => d.path).join(), query).toContain(path);
      }
      expect((await b.send('GET', '/reports/trial-balance?fiscal_year_id=00000000-0000-4000-8000-000000000000')).status).toBe(404);
      // A statement of a span needs both ends; only the balance sheet is as of a date.
      for (const report of ['account-balances', 'trial-balance', 'income-statement']) {
        const response = await b.send('GET', `/reports/${report}?to=2026-01-31`);
        expect(response.status, report).toBe(400);
        expect(response.body.error.details[0].path, report).toBe('query.from');
      }
    });

    it('balance sheet as of a date: to alone covers its fiscal year up to to, from moves the start column', async () => {
      const asOf = await b.send('GET', '/reports/balance-sheet?to=2026-02-28');
      expect(asOf.status, asOf.text).toBe(200);
      expect(asOf.body.data.period).toMatchObject({ from: '2026-01-01', to: '2026-02-28', fiscal_year: { id: year2026 } });
      const spelledOut = await b.send('GET', '/reports/balance-sheet?from=2026-01-01&to=2026-02-28');
      expect(asOf.body.data).toEqual(spelledOut.body.data);
      const assets = await sums({ to: '2026-02-28', accountTo: '1999' });
      expect(asOf.body.data.totals.assets).toBe(Number(assets.debit - assets.credit));
      // With from, the closing side is the same; the period (and the start column) begins at from.
      const february = await b.send('GET', `/reports/balance-sheet?${FEBRUARY}`);
      expect(february.body.data.period.from).toBe('2026-02-01');
      expect(february.body.data.totals).toEqual(asOf.body.data.totals);
      const pdf = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/reports/balance-sheet?to=2026-02-28`, {
        key: tenant.key,
        headers: { accept: 'application/pdf' },
      });
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-disposition')).toContain('balance-sheet-2026-01-01-2026-02-28.pdf');
      const cases: [string, number, string][] = [
        ['to=2024-06-30', 422, 'query.to'],
        [`to=2026-02-28&fiscal_year_id=${year2026}`, 400, 'query.fiscal_year_id'],
        ['from=2026-02-01', 400, 'query.to'],
        ['to=2026-02-30', 400, 'query.to'],
      ];
      for (const [query, status, path] of cases) {
        const response = await b.send('GET', `/reports/balance-sheet?${query}`);
        expect(response.status, query).toBe(status);
        expect(response.body.error.details.map((d: { path: string }) => d.path).join(), query).toContain(path);
      }
    });

    it('another company answers 404 for every report and the SIE file; a key without companies:read gets 403', async () => {
      const paths = ['account-balances', 'trial-balance', 'income-statement', 'balance-sheet', 'general-ledger'].map((r) => `/reports/${r}`);
      paths.push(`/fiscal-years/${year2026}/sie`);
      for (const path of paths) {
        const foreign = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}${path}`, { key: other.key });
        expect(foreign.status, path).toBe(404);
        const pdf = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}${path}`, { key: other.key, headers: { accept: 'application/pdf' } });
        expect(pdf.status, path).toBe(404);
      }
      const otherYear = await call(app, 'GET', `/api/v1/companies/${other.companyId}/fiscal-years/${year2026}/sie`, { key: other.key });
      expect(otherYear.status).toBe(404);
      const { key } = await makeKey(t.services.database.prisma, tenant.userId, { scopes: ['companies:write'] });
      const denied = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/reports/trial-balance`, { key });
      expect(denied.status).toBe(403);
      expect(denied.body.error.required_scope).toBe('companies:read');
    });

    it('negotiates on Accept: JSON by default, PDF on request, 406 otherwise, Vary: Accept', async () => {
      const path = `/api/v1/companies/${tenant.companyId}/reports/trial-balance?${FEBRUARY}`;
      for (const accept of [
        '*/*',
        'application/json',
        'application/*',
        'text/html,application/xhtml+xml,*/*;q=0.8',
        'application/pdf;q=0.5, application/json',
      ]) {
        const response = await call(app, 'GET', path, { key: tenant.key, headers: { accept } });
        expect(response.headers.get('content-type'), accept).toMatch(/^application\/json/);
        expect(response.headers.get('vary')).toBe('Accept');
      }
      const pdf = await call(app, 'GET', path, { key: tenant.key, headers: { accept: 'application/json;q=0.1, application/pdf' } });
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      const refused = await call(app, 'GET', path, { key: tenant.key, headers: { accept: 'text/csv' } });
      expect(refused.status).toBe(406);
      expect(refused.body.error).toMatchObject({ code: 'NOT_ACCEPTABLE', valid_alternatives: ['application/json', 'application/pdf'] });
      const sie = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/fiscal-years/${year2026}/sie`, {
        key: tenant.key,
        headers: { accept: 'application/json' },
      });
      expect(sie.status).toBe(406);
      expect(sie.body.error.valid_alternatives).toEqual(['text/plain; charset=cp437']);
    });
  });
});

describe.each(DB_TARGETS)('statement arithmetic after a realistic month (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let b: ReturnType<typeof books>;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
    const month: [string, LineInput[]][] = [
      [
        '2026-03-01',
        [
          { account: '1930', debit: 5_000_000 },
          { account: '2081', credit: 5_000_000 },
        ],
      ], // share capital paid in
      [
        '2026-03-03',
        [
          { account: '1510', debit: 1_250_000 },
          { account: '3001', credit: 1_000_000 },
          { account: '2611', credit: 250_000 },
        ],
      ], // invoice, 25 % VAT
      [
        '2026-03-05',
        [
          { account: '1510', debit: 336_000 },
          { account: '3002', credit: 300_000 },
          { account: '2621', credit: 36_000 },
        ],
      ], // invoice, 12 % VAT
      [
        '2026-03-08',
        [
          { account: '4010', debit: 400_000 },
          { account: '2641', debit: 100_000 },
          { account: '2440', credit: 500_000 },
        ],
      ], // supplier invoice
      [
        '2026-03-10',
        [
          { account: '5010', debit: 1_200_000 },
          { account: '2641', debit: 300_000 },
          { account: '1930', credit: 1_500_000 },
        ],
      ], // rent, paid
      [
        '2026-03-15',
        [
          { account: '6110', debit: 40_000 },
          { account: '2641', debit: 10_000 },
          { account: '1930', credit: 50_000 },
        ],
      ], // supplies, paid
      [
        '2026-03-20',
        [
          { account: '1930', debit: 1_250_000 },
          { account: '1510', credit: 1_250_000 },
        ],
      ], // customer pays
      [
        '2026-03-22',
        [
          { account: '2440', debit: 500_000 },
          { account: '1930', credit: 500_000 },
        ],
      ], // supplier paid
      [
        '2026-03-25',
        [
          { account: '7210', debit: 3_000_000 },
          { account: '2710', credit: 720_000 },
          { account: '1930', credit: 2_280_000 },
        ],
      ], // salary, tax withheld
      [
        '2026-03-25',
        [
          { account: '7510', debit: 942_600 },
          { account: '2730', credit: 942_600 },
        ],
      ], // employer contributions 31.42 %
      [
        '2026-03-31',
        [
          { account: '6570', debit: 12_500 },
          { account: '1930', credit: 12_500 },
        ],
      ], // bank fee
      [
        '2026-03-31',
        [
          { account: '8410', debit: 4_200 },
          { account: '1930', credit: 4_200 },
        ],
      ], // interest
    ];
    for (const [date, lines] of month) await b.book(date, lines);
  });
  afterAll(async () => t?.close());

  it("assets = equity + liabilities + result, and the result is the income statement's", async () => {
    const sheet = await b.send('GET', '/reports/balance-sheet?from=2026-03-01&to=2026-03-31');
    const income = await b.send('GET', '/reports/income-statement?from=2026-03-01&to=2026-03-31');
    expect(sheet.status, sheet.text).toBe(200);
    const { totals } = sheet.body.data;
    expect(totals.assets).toBe(totals.equity + totals.liabilities + totals.result);
    expect(sheet.body.data.balanced).toBe(true);
    expect(totals.result).toBe(income.body.data.result);
    // By hand: revenue 1 300 000, costs 400 000 + 1 200 000 + 40 000 + 3 000 000 + 942 600 + 12 500 + 4 200.
    expect(income.body.data.result).toBe(1_300_000 - 5_599_300);
    expect(income.body.data.operating_result).toBe(1_300_000 - 5_595_100);
    expect(income.body.data.result_after_financial_items).toBe(income.body.data.result);
    expect(totals.equity).toBe(5_000_000);
    // Bank 1 903 300, receivables 336 000.
    expect(totals.assets).toBe(1_903_300 + 336_000);
    expect(sheet.body.data.assets.sections.map((s: { key: string }) => s.key)).toEqual(['receivables', 'cash_and_bank']);
    const keys = sheet.body.data.equity_and_liabilities.sections.map((s: { key: string }) => s.key);
    expect(keys).toEqual(['equity', 'current_liabilities']);
    const trial = await b.send('GET', '/reports/trial-balance?from=2026-03-01&to=2026-03-31');
    expect(trial.body.data.balanced).toBe(true);
    expect(trial.body.data.totals.closing_balance).toBe(0);
  });

  it("a later month opens with March's balances; result accounts keep running within the year", async () => {
    await b.book('2026-04-02', [
      { account: '1930', debit: 336_000 },
      { account: '1510', credit: 336_000 },
    ]);
    const april = await b.send('GET', '/reports/account-balances?from=2026-04-01&to=2026-04-30');
    const march = await b.send('GET', '/reports/account-balances?from=2026-03-01&to=2026-03-31');
    const closing = new Map(march.body.data.accounts.map((row: { account: string; closing_balance: number }) => [row.account, row.closing_balance]));
    for (const row of april.body.data.accounts) expect(row.opening_balance, row.account).toBe(closing.get(row.account));
    const sheet = await b.send('GET', '/reports/balance-sheet?from=2026-04-01&to=2026-04-30');
    expect(sheet.body.data.balanced).toBe(true);
    expect(sheet.body.data.equity_and_liabilities.result.fiscal_year).toBe(1_300_000 - 5_599_300);
  });
});
