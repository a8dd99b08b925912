import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { EXPECTED_WRAPPED_HEADERS, expectHeaders } from '../../helpers/headers.ts';
import { books, type LineInput } from '../../helpers/ledger.ts';
import { download, sqlSums } from '../../helpers/reports.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { decodeSie } from '../../../domain/sie/format.ts';
import { parseSie, type SieDocument } from '../../../domain/sie/parse.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const COMPANY_NAME = 'Ångbåtsbolaget Åkerö Ängsbäck & Östlund Café AB';
/** CP437 code points of the Swedish letters (and é): what a PC8 file must hold, never UTF-8's two bytes. */
const CP437 = { å: 0x86, ä: 0x84, ö: 0x94, Å: 0x8f, Ä: 0x8e, Ö: 0x99, é: 0x82 } as const;

/** Three entries of 450 lines: the 1000-line pages of the export end inside an entry. */
function longEntry(seed: number): LineInput[] {
  const lines: LineInput[] = [];
  for (let line = 0; line < 225; line += 1) {
    const amount = 1_000 + ((seed * 17 + line * 29) % 5_000);
    lines.push({ account: '4010', debit: amount, description: `Vara ${line} "märkt" \\ åäö €` });
    lines.push({ account: '2440', credit: amount });
  }
  return lines;
}

describe.each(DB_TARGETS)('SIE 4 export (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let b: ReturnType<typeof books>;
  let years: { id: string; start_date: string; end_date: string }[];
  let file: { status: number; headers: Headers; bytes: Uint8Array; text: string };
  let document: SieDocument;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    await t.services.database.prisma.company.update({ where: { id: tenant.companyId }, data: { name: COMPANY_NAME, orgNumber: '559123-4567' } });
    b = books(app, tenant.key, tenant.companyId);
    await b.createYear('2025-01-01');
    await b.createYear('2026-01-01');
    years = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years;
    expect((await b.send('POST', '/accounts', { number: '3010', name: 'Försäljning "Éclair" \\ Öland' })).status).toBe(201);
    await b.book(
      '2025-02-01',
      [
        { account: '1930', debit: 2_500_000 },
        { account: '2081', credit: 2_500_000 },
      ],
      { description: 'Aktiekapital insättning' },
    );
    await b.book('2025-05-05', [
      { account: '1510', debit: 62_500 },
      { account: '3010', credit: 50_000 },
      { account: '2611', credit: 12_500 },
    ]);
    await b.book(
      '2026-01-15',
      [
        { account: '1930', debit: 62_500, description: 'Betalning från kund "Åhléns"' },
        { account: '1510', credit: 62_500 },
      ],
      {
        description: 'Inbetalning Åhléns - faktura 1001',
      },
    );
    const sale = await b.book(
      '2026-02-03',
      [
        { account: '1510', debit: 125_000 },
        { account: '3010', credit: 100_000 },
        { account: '2611', credit: 25_000 },
      ],
      {
        description: 'Försäljning Göteborg',
      },
    );
    expect((await b.send('POST', `/journal-entries/${sale.id}/reverse`, { date: '2026-02-04' })).status).toBe(201);
    await b.book(
      '2026-03-01',
      [
        { account: '6110', debit: 40_000 },
        { account: '2641', debit: 10_000 },
        { account: '1930', credit: 50_000 },
      ],
      { series: 'B' },
    );
    for (let seed = 0; seed < 3; seed += 1) await b.book('2026-04-10', longEntry(seed), { description: `Inköp ${seed}` });
    await b.draft('2026-04-11', [
      { account: '6110', debit: 1 },
      { account: '1930', credit: 1 },
    ]);

    const year = years.find((y) => y.start_date === '2026-01-01')!;
    file = await download(app, `/api/v1/companies/${tenant.companyId}/fiscal-years/${year.id}/sie`, { key: tenant.key });
    const parsed = parseSie(decodeSie(file.bytes));
    expect(parsed.issues).toEqual([]);
    document = parsed.document;
  });
  afterAll(async () => t?.close());

  it('is a CP437 text file with CRLF lines, no envelope, a file name and the security headers', () => {
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain; charset=cp437');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="sie4-559123-4567-2026-01-01\.se"/);
    expectHeaders(file.headers, EXPECTED_WRAPPED_HEADERS);
    const text = decodeSie(file.bytes);
    expect(text.startsWith('#FLAGGA 0\r\n#FORMAT PC8\r\n#SIETYP 4\r\n')).toBe(true);
    expect(text.split('\r\n').every((line) => !line.includes('\n'))).toBe(true);
    // Swedish letters are single CP437 bytes; UTF-8 would have written 0xC3 lead bytes.
    for (const [letter, code] of Object.entries(CP437)) expect(file.bytes.includes(code), letter).toBe(true);
    expect(file.bytes.includes(0xc3)).toBe(false);
  });

  it('names the company, the program, the date and both fiscal years', () => {
    expect(document).toMatchObject({ flag: 0, format: 'PC8', sieType: 4, companyName: COMPANY_NAME, orgNumber: '559123-4567', generatedOn: '2026-11-21' });
    expect(document.program?.name).toBe('Accounting Service');
    expect(document.fiscalYears.map(({ yearIndex, start, end }) => ({ yearIndex, start, end }))).toEqual([
      { yearIndex: 0, start: '2026-01-01', end: '2026-12-31' },
      { yearIndex: -1, start: '2025-01-01', end: '2025-12-31' },
    ]);
  });

  it('carries the whole chart of accounts with names intact and types by class', async () => {
    const chart = (await b.send('GET', '/accounts')).body.data.accounts.map((a: { number: string; name: string }) => ({ number: a.number, name: a.name }));
    expect(document.accounts.map(({ number, name }) => ({ number, name }))).toEqual(chart);
    const types = Object.fromEntries(document.accounts.map((a) => [a.number, a.type]));
    expect(types).toMatchObject({ '1930': 'T', '2440': 'S', '3010': 'I', '4010': 'K', '8310': 'I', '8410': 'K' });
    expect(types['3010']).toBe('I');
    expect(document.accounts.find((a) => a.number === '3010')?.name).toBe('Försäljning "Éclair" \\ Öland');
  });

  it('balances (#IB, #UB, #RES for this year and the one before) equal the account balances report', async () => {
    for (const [index, year] of [
      [0, years[1]!],
      [-1, years[0]!],
    ] as const) {
      const report = (await b.send('GET', `/reports/account-balances?fiscal_year_id=${year.id}`)).body.data.accounts;
      const expected: { kind: string; account: string; amount: number }[] = [];
      for (const row of report) {
        if (row.account < '3')
          expected.push({ kind: 'IB', account: row.account, amount: row.opening_balance }, { kind: 'UB', account: row.account, amount: row.closing_balance });
        else expected.push({ kind: 'RES', account: row.account, amount: row.closing_balance });
      }
      const exported = document.balances.filter((balance) => balance.yearIndex === index).map(({ kind, account, amount }) => ({ kind, account, amount }));
      expect(exported).toEqual(expected);
    }
    const ub1930 = document.balances.find((balance) => balance.kind === 'UB' && balance.yearIndex === 0 && balance.account === '1930');
    const bank = await sqlSums(t.services.database.prisma, tenant.companyId, { to: '2026-12-31', accountFrom: '1930', accountTo: '1930' });
    expect(ub1930?.amount).toBe(Number(bank.debit - bank.credit));
  });

  it('has one balanced #VER per committed entry of the year, with every line as #TRANS', async () => {
    const entries = (await b.send('GET', '/journal-entries?date_from=2026-01-01&date_to=2026-12-31&limit=200')).body.data.journal_entries
      .filter((entry: { status: string }) => entry.status !== 'draft')
      .sort((x: { series: string; number: number }, y: { series: string; number: number }) => x.series.localeCompare(y.series) || x.number - y.number);
    expect(document.verifications.map((v) => `${v.series}${v.number}`)).toEqual(entries.map((e: { voucher: string }) => e.voucher));
    document.verifications.forEach((verification, index) => {
      const entry = entries[index];
      expect(verification).toMatchObject({ date: entry.date, text: entry.description, registeredOn: entry.committed_at.slice(0, 10) });
      expect(verification.transactions.map(({ account, amount, text }) => ({ account, amount, text }))).toEqual(
        entry.lines.map((line: { account: string; debit: number; credit: number; description: string | null }) => ({
          account: line.account,
          amount: line.debit - line.credit,
          // CP437 has no euro sign: it is written as its nearest CP437 form, EUR (issue 29).
          text: line.description?.replace('€', 'EUR') ?? null,
        })),
      );
      expect(verification.transactions.reduce((sum, transaction) => sum + transaction.amount, 0)).toBe(0);
    });
    const year = await sqlSums(t.services.database.prisma, tenant.companyId, { from: '2026-01-01', to: '2026-12-31' });
    const transactions = document.verifications.flatMap((verification) => verification.transactions);
    expect(transactions.length).toBe(Number(year.lines));
    expect(transactions.length).toBeGreaterThan(1_000);
    expect(transactions.filter((transaction) => transaction.amount > 0).reduce((sum, transaction) => sum + transaction.amount, 0)).toBe(Number(year.debit));
    expect(transactions.find((transaction) => transaction.text?.startsWith('Vara 7 '))?.text).toBe('Vara 7 "märkt" \\ åäö EUR');
  });

  it('an unknown fiscal year answers 404 before any byte is sent', async () => {
    const missing = await download(app, `/api/v1/companies/${tenant.companyId}/fiscal-years/00000000-0000-4000-8000-000000000000/sie`, { key: tenant.key });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error.code).toBe('NOT_FOUND');
  });
});
