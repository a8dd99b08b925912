import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { books, type LineInput } from '../../helpers/ledger.ts';
import { sqlSums } from '../../helpers/reports.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { MAX_AMOUNT_ORE, MAX_COMMITTED_DEBIT_ORE } from '../../../domain/ledger/amount-limits.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const DAY = '2026-03-10';

/** Every report of a fiscal year, as a caller reads them after the writes. */
const REPORTS = [
  '/reports/account-balances',
  '/reports/trial-balance',
  '/reports/income-statement',
  '/reports/balance-sheet',
  '/reports/general-ledger',
] as const;

/** An entry of `count` debit lines of `amount` on 1930 against as many credit lines on 2081. */
const entryOf = (amount: number, count: number): LineInput[] => [
  ...Array.from({ length: count }, () => ({ account: '1930', debit: amount })),
  ...Array.from({ length: count }, () => ({ account: '2081', credit: amount })),
];

describe.each(DB_TARGETS)('amounts are bounded so no accepted write can break a read (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
  });
  afterAll(async () => t?.close());

  async function freshBooks(): Promise<{ tenant: Tenant; b: ReturnType<typeof books>; yearId: string }> {
    const tenant = await makeTenant(t.services.database.prisma);
    const b = books(app, tenant.key, tenant.companyId);
    const year = await b.createYear('2026-01-01');
    expect(year.status, year.text).toBe(201);
    return { tenant, b, yearId: year.body.data.id };
  }

  /** Reads every report and the SIE export; each must answer 200 and the trial balance must agree with SQL. */
  async function readEverything(tenant: Tenant, yearId: string): Promise<void> {
    const base = `/api/v1/companies/${tenant.companyId}`;
    for (const report of REPORTS) {
      const response = await call(app, 'GET', `${base}${report}?fiscal_year_id=${yearId}`, { key: tenant.key });
      expect(response.status, `${report}: ${response.text.slice(0, 300)}`).toBe(200);
    }
    const sie = await call(app, 'GET', `${base}/fiscal-years/${yearId}/sie`, { key: tenant.key });
    expect(sie.status, sie.text.slice(0, 300)).toBe(200);
    const trial = await call(app, 'GET', `${base}/reports/trial-balance?fiscal_year_id=${yearId}`, { key: tenant.key });
    const sums = await sqlSums(t.services.database.prisma, tenant.companyId, { from: '2026-01-01', to: '2026-12-31' });
    expect(BigInt(trial.body.data.totals.period_debit)).toBe(sums.debit);
    expect(BigInt(trial.body.data.totals.period_credit)).toBe(sums.credit);
  }

  it('refuses an amount above the per-amount bound with a 400 naming the limit (three entries of 2^52 öre broke every report)', async () => {
    const { b, tenant, yearId } = await freshBooks();
    for (const amount of [2 ** 52, MAX_AMOUNT_ORE + 1]) {
      const draft = await b.draft(DAY, entryOf(amount, 1), {});
      expect(draft.status, draft.text).toBe(400);
      expect(draft.body.error.code).toBe('VALIDATION_ERROR');
      expect(draft.body.error.details.map((d: { path: string }) => d.path)).toContain('body.lines.0.debit');
      expect(draft.text).toContain(String(MAX_AMOUNT_ORE));
    }
    await b.book(DAY, entryOf(MAX_AMOUNT_ORE, 1));
    await readEverything(tenant, yearId);
  });

  it('commits up to the per-company bound exactly, refuses one öre more with AMOUNT_LIMIT_REACHED, and every report still reads', async () => {
    const { b, tenant, yearId } = await freshBooks();
    // 4·10^15 öre = two entries of 200 debit lines of 10^13 öre each.
    const linesPerEntry = MAX_COMMITTED_DEBIT_ORE / MAX_AMOUNT_ORE / 2;
    await b.book(DAY, entryOf(MAX_AMOUNT_ORE, linesPerEntry));
    await b.book(DAY, entryOf(MAX_AMOUNT_ORE, linesPerEntry));
    const over = await b.draft(DAY, entryOf(1, 1));
    expect(over.status, over.text).toBe(201);
    const refused = await b.commit(over.body.data.id);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error.code).toBe('AMOUNT_LIMIT_REACHED');
    expect(refused.body.error.message).toContain(String(MAX_COMMITTED_DEBIT_ORE));
    // The refused draft stays a draft; a reversal (which would add to the committed debits) is refused the same way.
    const entries = await b.send('GET', '/journal-entries?status=committed');
    const reversal = await b.send('POST', `/journal-entries/${entries.body.data.journal_entries[0].id}/reverse`, { date: DAY });
    expect(reversal.status, reversal.text).toBe(422);
    expect(reversal.body.error.code).toBe('AMOUNT_LIMIT_REACHED');
    await readEverything(tenant, yearId);
    const balances = await b.send('GET', `/reports/trial-balance?fiscal_year_id=${yearId}`);
    expect(balances.body.data.totals.period_debit).toBe(MAX_COMMITTED_DEBIT_ORE);
  });

  it('property: random entries at the bounds, committed or refused with the limit, never break a report', async () => {
    // Amounts at, beside and beyond the bound (up to the largest JSON integer), many lines, entries that cross the company bound.
    const amount = fc.oneof(
      fc.constantFrom(MAX_AMOUNT_ORE, MAX_AMOUNT_ORE - 1, MAX_AMOUNT_ORE + 1, 1, 2 ** 52, Number.MAX_SAFE_INTEGER),
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    );
    const entry = fc.record({ amount, count: fc.oneof(fc.constant(250), fc.integer({ min: 1, max: 250 })) });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 5 }), async (entries) => {
        const { b, tenant, yearId } = await freshBooks();
        for (const { amount: each, count } of entries) {
          const draft = await b.draft(DAY, entryOf(each, count), {});
          if (each > MAX_AMOUNT_ORE) {
            expect(draft.status, draft.text).toBe(400);
            continue;
          }
          expect(draft.status, draft.text).toBe(201);
          const committed = await b.commit(draft.body.data.id);
          expect([200, 422], committed.text).toContain(committed.status);
          if (committed.status === 422) expect(committed.body.error.code).toBe('AMOUNT_LIMIT_REACHED');
        }
        await readEverything(tenant, yearId);
      }),
      { numRuns: 6 },
    );
  });

  it('bounds salaries: 2^53-1 is a 400; the largest accepted salary runs, books and reads', async () => {
    const { tenant, b, yearId } = await freshBooks();
    const send = (method: string, path: string, body?: unknown) =>
      call(app, method, `/api/v1/companies/${tenant.companyId}${path}`, {
        key: tenant.key,
        headers: { 'idempotency-key': randomUUID() },
        ...(body !== undefined && { body }),
      });
    const employee = { name: 'Anna', personal_identity_number: '19811218-9876', employment_start: '2026-01-01', tax_rate: 30 };
    const tooBig = await send('POST', '/employees', { ...employee, monthly_salary: Number.MAX_SAFE_INTEGER });
    expect(tooBig.status, tooBig.text).toBe(400);
    expect(tooBig.text).toContain(String(MAX_AMOUNT_ORE));
    const fixedTax = await send('POST', '/employees', { ...employee, monthly_salary: 100, tax_rate: undefined, tax_amount: MAX_AMOUNT_ORE + 1 });
    expect(fixedTax.status, fixedTax.text).toBe(400);
    const created = await send('POST', '/employees', { ...employee, monthly_salary: MAX_AMOUNT_ORE });
    expect(created.status, created.text).toBe(201);
    const run = await send('POST', '/salary-runs', { period: '2026-03' });
    expect(run.status, run.text).toBe(201);
    expect(run.body.data.gross).toBe(MAX_AMOUNT_ORE);
    expect((await send('POST', `/salary-runs/${run.body.data.id}/approve`)).status).toBe(200);
    const booked = await send('POST', `/salary-runs/${run.body.data.id}/book`);
    expect(booked.status, booked.text).toBe(200);
    expect((await send('GET', '/salary-runs')).status).toBe(200);
    await readEverything(tenant, yearId);
    void b;
  });
});
