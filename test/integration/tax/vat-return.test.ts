import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { books } from '../../helpers/ledger.ts';
import { connectInProcess } from '../../helpers/mcp-client.ts';
import { download, ESKD_XSD, HAS_XMLLINT, validateXml } from '../../helpers/xml.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { sqlState } from '../../../domain/db/errors.ts';

const NOW = new Date('2026-10-08T09:00:00.000Z');
const kr = (kronor: number) => Math.round(kronor * 100);

/**
 * A September with every kind of transaction the issue names, and the boxes worked out by hand
 * from Skatteverket's "Fylla i momsdeklarationen" (docs/tax.md#the-vat-return):
 *
 *   sale 25 %  3001 100 000,40 kr, VAT 2611 25 000,10; credit note 3001 −1 000, 2611 −250
 *   sale 12 %  3002 10 000, 2621 1 200          sale 6 %  3003 5 000, 2631 300
 *   exempt     3004 2 000                        EU service sale  3308 40 000
 *   EU service purchase  4535 8 000, reverse charge 2614 2 000 / 2645 2 000
 *   import of goods      4545 20 000, import VAT 2615 5 000 / 2645 5 000
 *   domestic reverse charge (construction services) 4425 30 000, 2617 7 500 / 2647 7 500
 *   purchase with VAT    4010 4 000, 2641 1 000,25;  dormant VAT 2618 250 (counts nowhere)
 *
 *   05 = 99 000,40 + 10 000 + 5 000 = 114 000,40 → 114 000    10 = 24 750,10 → 24 750
 *   11 = 1 200   12 = 300   21 = 8 000   24 = 30 000   30 = 2 000 + 7 500 = 9 500
 *   50 = 20 000   60 = 5 000   39 = 40 000   42 = 2 000
 *   48 = 1 000,25 + 2 000 + 5 000 + 7 500 = 15 500,25 → 15 500
 *   49 = 24 750 + 1 200 + 300 + 9 500 + 5 000 − 15 500 = 25 250
 */
const EXPECTED: Record<string, number> = {
  '05': 114_000,
  '10': 24_750,
  '11': 1_200,
  '12': 300,
  '21': 8_000,
  '24': 30_000,
  '30': 9_500,
  '50': 20_000,
  '60': 5_000,
  '39': 40_000,
  '42': 2_000,
  '48': 15_500,
  '49': 25_250,
};

describe.each(DB_TARGETS)('the VAT return box by box, its settlement and its file (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let b: ReturnType<typeof books>;
  let september: string;
  let first: Record<string, any>;
  let submitted: Record<string, any>;
  const send = (method: string, path: string, body?: unknown, key = tenant.key) =>
    call(app, method, `/api/v1/companies/${tenant.companyId}${path}`, { key, ...(body !== undefined && { body }) });
  const declared = (vatReturn: { boxes: { box: string; amount: number }[] }) =>
    Object.fromEntries(vatReturn.boxes.filter((box) => box.amount !== 0).map((box) => [box.box, box.amount / 100]));
  const generate = () => send('POST', '/vat-returns', { period_start: '2026-09-01', period_end: '2026-09-30' });
  const lock = async (locked: boolean) => expect((await send('POST', `/periods/${september}/${locked ? 'lock' : 'unlock'}`)).status).toBe(200);

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
    for (const [number, name, vat_code] of [
      ['3308', 'Försäljning tjänster till annat EU-land', 'eu_service_sale'],
      ['4535', 'Inköp av tjänster från annat EU-land, 25 %', 'eu_service_purchase'],
      ['4545', 'Import av varor, 25 %', 'import_goods'],
      ['4425', 'Inköpta tjänster i Sverige, omvänd skattskyldighet, 25 %', 'se_reverse_charge_service_purchase'],
      ['2614', 'Utgående moms omvänd skattskyldighet, 25 %', null],
      ['2615', 'Utgående moms import av varor, 25 %', null],
      ['2617', 'Utgående moms omvänd skattskyldighet varor och tjänster i Sverige, 25 %', null],
      ['2618', 'Vilande utgående moms, 25 %', null],
      ['2645', 'Beräknad ingående moms på förvärv från utlandet', null],
      ['2647', 'Ingående moms omvänd skattskyldighet varor och tjänster i Sverige', null],
    ] as const) {
      expect((await send('POST', '/accounts', { number, name, vat_code })).status).toBe(201);
    }
    const entries: [string, { account: string; debit?: number; credit?: number }[]][] = [
      [
        '2026-09-02',
        [
          { account: '1510', debit: kr(125_000.5) },
          { account: '3001', credit: kr(100_000.4) },
          { account: '2611', credit: kr(25_000.1) },
        ],
      ],
      [
        '2026-09-03',
        [
          { account: '1510', debit: kr(11_200) },
          { account: '3002', credit: kr(10_000) },
          { account: '2621', credit: kr(1_200) },
        ],
      ],
      [
        '2026-09-04',
        [
          { account: '1510', debit: kr(5_300) },
          { account: '3003', credit: kr(5_000) },
          { account: '2631', credit: kr(300) },
        ],
      ],
      [
        '2026-09-05',
        [
          { account: '1510', debit: kr(2_000) },
          { account: '3004', credit: kr(2_000) },
        ],
      ],
      [
        '2026-09-08',
        [
          { account: '1510', debit: kr(40_000) },
          { account: '3308', credit: kr(40_000) },
        ],
      ],
      [
        '2026-09-10',
        [
          { account: '4535', debit: kr(8_000) },
          { account: '2645', debit: kr(2_000) },
          { account: '2614', credit: kr(2_000) },
          { account: '2440', credit: kr(8_000) },
        ],
      ],
      [
        '2026-09-12',
        [
          { account: '4545', debit: kr(20_000) },
          { account: '2645', debit: kr(5_000) },
          { account: '2615', credit: kr(5_000) },
          { account: '2440', credit: kr(20_000) },
        ],
      ],
      [
        '2026-09-15',
        [
          { account: '4425', debit: kr(30_000) },
          { account: '2647', debit: kr(7_500) },
          { account: '2617', credit: kr(7_500) },
          { account: '2440', credit: kr(30_000) },
        ],
      ],
      [
        '2026-09-18',
        [
          { account: '4010', debit: kr(4_000) },
          { account: '2641', debit: kr(1_000.25) },
          { account: '2440', credit: kr(5_000.25) },
        ],
      ],
      [
        '2026-09-20',
        [
          { account: '1510', debit: kr(250) },
          { account: '2618', credit: kr(250) },
        ],
      ],
      [
        '2026-09-25',
        [
          { account: '3001', debit: kr(1_000) },
          { account: '2611', debit: kr(250) },
          { account: '1510', credit: kr(1_250) },
        ],
      ],
    ];
    for (const [date, lines] of entries) await b.book(date, lines);
    september = (await send('GET', '/periods')).body.data.periods.find((p: { start_date: string }) => p.start_date === '2026-09-01').id;
  });
  afterAll(async () => t?.close());

  it('refuses open periods, then gives every box as worked out by hand, in whole kronor with the öre kept per account', async () => {
    expect((await generate()).body.error.code).toBe('PERIODS_NOT_LOCKED');
    await lock(true);
    const generated = await generate();
    expect(generated.status, generated.text).toBe(201);
    first = generated.body.data;
    expect(first).toMatchObject({ version: 1, corrects_id: null, status: 'generated', net_vat: kr(25_250) });
    expect(declared(first as never)).toEqual(EXPECTED);
    const box = (n: string) => first.boxes.find((x: { box: string }) => x.box === n);
    const exact = (n: string) => box(n).accounts.reduce((sum: number, a: { amount: number }) => sum + a.amount, 0);
    expect([box('05').amount, exact('05')]).toEqual([kr(114_000), kr(114_000.4)]);
    expect([box('48').amount, exact('48')]).toEqual([kr(15_500), kr(15_500.25)]);
    expect(box('48').accounts).toEqual([
      { account: '2641', name: 'Debiterad ingående moms', amount: kr(1_000.25) },
      { account: '2645', name: 'Beräknad ingående moms på förvärv från utlandet', amount: kr(7_000) },
      { account: '2647', name: 'Ingående moms omvänd skattskyldighet varor och tjänster i Sverige', amount: kr(7_500) },
    ]);
    // Every box of the form is there, in its order; 2618 (vilande) fed none.
    expect(first.boxes.map((x: { box: string }) => x.box)).toEqual(
      '05 06 07 08 10 11 12 20 21 22 23 24 30 31 32 50 60 61 62 35 36 37 38 39 40 41 42 48 49'.split(' '),
    );
    expect(JSON.stringify(first.boxes)).not.toContain('2618');
    expect(box('30').accounts.map((a: { account: string }) => a.account)).toEqual(['2614', '2617']);
    expect(first.output_vat).toBe(kr(24_750 + 1_200 + 300 + 9_500 + 5_000));
    expect(first.input_vat).toBe(kr(15_500));
  });

  it('shows the settlement it will book: each VAT account to zero, 25 250 kr to 2650, the 0,15 kr in between to 3740', () => {
    const lines = Object.fromEntries(first.settlement.lines.map((l: { account: string; debit: number; credit: number }) => [l.account, l.debit - l.credit]));
    expect(lines).toEqual({
      '2611': kr(24_750.1),
      '2614': kr(2_000),
      '2615': kr(5_000),
      '2617': kr(7_500),
      '2621': kr(1_200),
      '2631': kr(300),
      '2641': -kr(1_000.25),
      '2645': -kr(7_000),
      '2647': -kr(7_500),
      '2650': -kr(25_250),
      '3740': 15,
    });
    expect(first.settlement.journal_entry_id).toBeNull();
  });

  it("serves Skatteverket's eSKD file: ISO 8859-1, the DTD's order, whole kronor, valid against the schema", async () => {
    const file = await download(app, `/api/v1/companies/${tenant.companyId}/vat-returns/${first.id}`, tenant.key, 'application/xml');
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/xml; charset=ISO-8859-1');
    expect(file.headers.get('content-disposition')).toContain('momsdeklaration-5560000000-202609-v1.xml');
    const text = iconv.decode(Buffer.from(file.bytes), 'latin1');
    const values = [...text.matchAll(/<(\w+)>(-?\d+)<\/\1>/g)].map((m) => `${m[1]}=${m[2]}`);
    expect(values).toEqual([
      'Period=202609',
      'ForsMomsEjAnnan=114000',
      'InkopTjanstAnnatEg=8000',
      'InkopTjanstSverige=30000',
      'MomsUlagImport=20000',
      'ForsTjSkskAnnatEg=40000',
      'ForsOvrigt=2000',
      'MomsUtgHog=24750',
      'MomsUtgMedel=1200',
      'MomsUtgLag=300',
      'MomsInkopUtgHog=9500',
      'MomsImportUtgHog=5000',
      'MomsIngAvdr=15500',
      'MomsBetala=25250',
    ]);
    expect(text).toContain('<OrgNr>556000-0000</OrgNr>');
    if (HAS_XMLLINT) {
      const verdict = validateXml(ESKD_XSD, file.bytes);
      expect(verdict.valid, verdict.output).toBe(true);
      // The validator does refuse what Skatteverket would: a box out of the DTD's order, öre in an amount.
      const reordered = text.replace(/\s*<ForsMomsEjAnnan>\d+<\/ForsMomsEjAnnan>/, '').replace('</Moms>', '<ForsMomsEjAnnan>114000</ForsMomsEjAnnan></Moms>');
      expect(validateXml(ESKD_XSD, iconv.encode(reordered, 'latin1')).valid).toBe(false);
      expect(validateXml(ESKD_XSD, iconv.encode(text.replace('>24750<', '>24750.10<'), 'latin1')).valid).toBe(false);
    }
    const json = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/vat-returns/${first.id}`, { key: tenant.key });
    expect(json.body.data.id).toBe(first.id);
  });

  it('submitting books the settlement in the same transaction; dry_run shows it and books nothing', async () => {
    const dry = await send('POST', `/vat-returns/${first.id}/submit?dry_run=true`);
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.meta.dry_run).toBe(true);
    expect(dry.body.data.status).toBe('submitted');
    expect(dry.body.data.settlement.journal_entry_id).toEqual(expect.any(String));
    expect(dry.body.meta.would_emit).toEqual(expect.arrayContaining(['vat_return.submitted', 'journal_entry.committed']));
    expect((await send('GET', `/journal-entries/${dry.body.data.settlement.journal_entry_id}`)).status).toBe(404);

    const response = await send('POST', `/vat-returns/${first.id}/submit`);
    expect(response.status, response.text).toBe(200);
    submitted = response.body.data;
    expect(submitted).toMatchObject({ status: 'submitted', submitted_at: NOW.toISOString(), settlement: { lines: first.settlement.lines } });
    const entry = (await send('GET', `/journal-entries/${submitted.settlement.journal_entry_id}`)).body.data;
    expect(entry).toMatchObject({ status: 'committed', date: '2026-09-30', period_id: september });
    expect(entry.lines.map((l: { account: string; debit: number; credit: number }) => [l.account, l.debit, l.credit])).toEqual(
      first.settlement.lines.map((l: { account: string; debit: number; credit: number }) => [l.account, l.debit, l.credit]),
    );
    // The VAT accounts of September are now empty, except the dormant one.
    const balances = (await send('GET', '/reports/account-balances?from=2026-09-01&to=2026-09-30')).body.data;
    const closing = Object.fromEntries(balances.accounts.map((a: { account: string; closing_balance: number }) => [a.account, a.closing_balance]));
    for (const account of ['2611', '2614', '2615', '2617', '2621', '2631', '2641', '2645', '2647']) expect(closing[account] ?? 0, account).toBe(0);
    expect(closing['2618']).toBe(-kr(250));
    expect((await send('POST', `/vat-returns/${first.id}/submit`)).body.error.code).toBe('FILING_SUBMITTED');
    const frozen = await t.services.database.prisma
      .$executeRawUnsafe(`UPDATE vat_returns SET net_vat = 0, output_vat = input_vat WHERE id = '${first.id}'`)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(sqlState(frozen)).toBe('23514');
  });

  it('the return is the same after the settlement is booked inside the period: a new version, identical boxes, nothing left to settle', async () => {
    const again = await generate();
    expect(again.status, again.text).toBe(201);
    expect(again.body.data).toMatchObject({ version: 2, corrects_id: first.id, status: 'generated', settlement: { lines: [], journal_entry_id: null } });
    expect(again.body.data.boxes).toEqual(first.boxes);
  });

  it('a correction: a forgotten sale booked late gives version 2 whose settlement moves only the difference', async () => {
    await lock(false);
    await b.book('2026-09-29', [
      { account: '1510', debit: kr(1_250) },
      { account: '3001', credit: kr(1_000) },
      { account: '2611', credit: kr(250) },
    ]);
    await lock(true);
    const corrected = await generate();
    expect(corrected.body.data).toMatchObject({ version: 2, corrects_id: first.id });
    expect(declared(corrected.body.data)).toEqual({ ...EXPECTED, '05': 115_000, '10': 25_000, '49': 25_500 });
    expect(corrected.body.data.settlement.lines).toEqual([
      { account: '2611', debit: kr(250), credit: 0 },
      { account: '2650', debit: 0, credit: kr(250) },
    ]);
    const done = await send('POST', `/vat-returns/${corrected.body.data.id}/submit`);
    expect(done.status, done.text).toBe(200);
    const list = (await send('GET', '/vat-returns')).body.data.vat_returns;
    expect(list.map((r: { version: number; status: string }) => [r.version, r.status])).toEqual([
      [2, 'submitted'],
      [1, 'submitted'],
    ]);
    const events = await t.services.database.prisma.event.findMany({ where: { companyId: tenant.companyId, type: { startsWith: 'vat_return.' } } });
    // Generated: version 1, version 2 (identical), version 2 again (with the late sale); submitted: both.
    expect(events.map((e) => e.type).sort()).toEqual([
      'vat_return.generated',
      'vat_return.generated',
      'vat_return.generated',
      'vat_return.submitted',
      'vat_return.submitted',
    ]);
  });

  it('over MCP the same return, box for box', async () => {
    const mcp: Client = await connectInProcess(app, { key: tenant.key });
    const result = await mcp.callTool({ name: 'tax.get_vat_return', arguments: { company_id: tenant.companyId, vat_return_id: first.id } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { boxes: unknown }).boxes).toEqual(submitted.boxes);
    await mcp.close();
  });

  it('another company reaches none of it, file included', async () => {
    const other = await makeTenant(t.services.database.prisma);
    expect((await call(app, 'GET', `/api/v1/companies/${tenant.companyId}/vat-returns/${first.id}`, { key: other.key })).status).toBe(404);
    expect((await call(app, 'GET', `/api/v1/companies/${other.companyId}/vat-returns/${first.id}`, { key: other.key })).status).toBe(404);
    expect((await download(app, `/api/v1/companies/${other.companyId}/vat-returns/${first.id}`, other.key, 'application/xml')).status).toBe(404);
    expect((await call(app, 'POST', `/api/v1/companies/${other.companyId}/vat-returns/${first.id}/submit`, { key: other.key })).status).toBe(404);
  });
});
