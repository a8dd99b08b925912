import { describe, expect, it } from 'vitest';
import { VAT_CODES } from '../../domain/ledger/schemas.ts';
import { defaultVatCode } from '../../domain/ledger/vat-codes.ts';
import { BAS_STARTER_CHART } from '../../domain/ledger/starter-chart.ts';
import { ESKD_ELEMENTS, eskdXml } from '../../domain/tax/eskd.ts';
import { computeBoxes, DORMANT_VAT_ACCOUNTS, settlementLines, VAT_ACCOUNTS, VAT_BOXES, wholeKronor } from '../../domain/tax/vat-boxes.ts';

/** The boxes of Skatteverket's form, blocks A-I ("Fylla i momsdeklarationen"). */
const FORM_BOXES = '05 06 07 08 10 11 12 20 21 22 23 24 30 31 32 35 36 37 38 39 40 41 42 48 49 50 60 61 62'.split(' ');

describe('the VAT return declaration', () => {
  it("has every box of Skatteverket's form, once, each with a source and an eSKD element", () => {
    expect(VAT_BOXES.map((box) => box.box).sort()).toEqual(FORM_BOXES);
    expect(ESKD_ELEMENTS.map((element) => element.box).sort()).toEqual(FORM_BOXES);
    for (const box of VAT_BOXES) {
      const source = box.source;
      const fed = 'accounts' in source ? source.accounts.length : 'vatCodes' in source ? source.vatCodes.length : source.add.length;
      expect(fed, box.box).toBeGreaterThan(0);
    }
  });

  it('feeds every VAT code into exactly one box (a rate code on an expense account into none), and no dormant account into any', () => {
    const boxesOf = (code: string) => VAT_BOXES.filter((box) => 'vatCodes' in box.source && (box.source.vatCodes as readonly string[]).includes(code));
    for (const code of VAT_CODES) expect(boxesOf(code).length, code).toBe(1);
    for (const dormant of DORMANT_VAT_ACCOUNTS) expect(VAT_ACCOUNTS).not.toContain(dormant);
    expect(VAT_ACCOUNTS).toContain('2615');
    expect(VAT_BOXES.find((box) => box.box === '60')?.source).toEqual({ accounts: ['2615'] });
    expect(VAT_BOXES.find((box) => box.box === '30')?.source).toEqual({ accounts: ['2614', '2617'] });
  });

  it('drops öre toward zero, as SFF 22 kap. 1 § says', () => {
    expect(wholeKronor(2_615_743)).toBe(2_615_700);
    expect(wholeKronor(-12_399)).toBe(-12_300);
    expect(wholeKronor(99)).toBe(0);
  });

  it('counts a sale on a revenue account only, and a purchase code on any account', () => {
    const boxes = computeBoxes([
      { number: '3001', name: 'Sales', type: 'revenue', vatCode: 'standard_25', balance: -1_000_050 },
      // An expense account marked with a rate is a purchase with input VAT: no sales box.
      { number: '4010', name: 'Purchases', type: 'expense', vatCode: 'standard_25', balance: 400_000 },
      { number: '1220', name: 'Equipment from the EU', type: 'asset', vatCode: 'eu_goods_purchase', balance: 2_000_000 },
      { number: '2611', name: 'Output VAT', type: 'equity_liability', vatCode: null, balance: -250_012 },
      { number: '2618', name: 'Dormant', type: 'equity_liability', vatCode: null, balance: -99_900 },
      { number: '2641', name: 'Input VAT', type: 'equity_liability', vatCode: null, balance: 100_000 },
    ]);
    const amount = (box: string) => boxes.find((b) => b.box === box)?.amount;
    expect(amount('05')).toBe(1_000_000);
    expect(amount('20')).toBe(2_000_000);
    expect(amount('10')).toBe(250_000);
    expect(amount('48')).toBe(100_000);
    expect(amount('49')).toBe(150_000);
  });

  it('settles each VAT account to zero, box 49 to 2650 and the öre to 3740, balanced', () => {
    const lines = settlementLines(
      new Map([
        ['2611', -250_012],
        ['2641', 100_000],
      ]),
      0,
      150_000,
    );
    expect(lines).toEqual([
      { account: '2611', debit: 250_012, credit: 0 },
      { account: '2641', debit: 0, credit: 100_000 },
      { account: '2650', debit: 0, credit: 150_000 },
      { account: '3740', debit: 0, credit: 12 },
    ]);
    expect(lines.reduce((sum, line) => sum + line.debit - line.credit, 0)).toBe(0);
    expect(settlementLines(new Map(), -150_000, 150_000)).toEqual([]);
  });

  it('writes the eSKD file in the DTD order with MomsBetala always', () => {
    const boxes = VAT_BOXES.map((box) => ({ box: box.box, label: box.label, amount: 0, accounts: [] }));
    const xml = eskdXml('556000-0000', { period_end: '2026-03-31', boxes });
    expect(xml).toContain('<Period>202603</Period>');
    expect(xml).toContain('<MomsBetala>0</MomsBetala>');
    expect(xml).not.toContain('<MomsUtgHog>');
  });
});

describe('default VAT codes by BAS number', () => {
  it('follows the BAS chart: the rate or the trade in the last digit of the sales groups, the purchase families by number', () => {
    expect(
      Object.fromEntries(
        ['3001', '3002', '3003', '3004', '3105', '3106', '3108', '3231', '3305', '3308', '3401', '4415', '4425', '4512', '4515', '4531', '4535', '4545'].map(
          (n) => [n, defaultVatCode(n)],
        ),
      ),
    ).toEqual({
      '3001': 'standard_25',
      '3002': 'reduced_12',
      '3003': 'reduced_6',
      '3004': 'exempt',
      '3105': 'export_goods',
      '3106': 'standard_25',
      '3108': 'eu_goods_sale',
      '3231': 'se_reverse_charge_sale',
      '3305': 'export_services',
      '3308': 'eu_service_sale',
      '3401': 'withdrawal',
      '4415': 'se_reverse_charge_goods_purchase',
      '4425': 'se_reverse_charge_service_purchase',
      '4512': 'triangular_purchase',
      '4515': 'eu_goods_purchase',
      '4531': 'non_eu_service_purchase',
      '4535': 'eu_service_purchase',
      '4545': 'import_goods',
    });
    // Older charts in SIE files (Visma's EU-BAS 97): 3005 outside the EU, 3008 to an EU country.
    expect([defaultVatCode('3005'), defaultVatCode('3008')]).toEqual(['export_goods', 'eu_goods_sale']);
    for (const none of ['1930', '2611', '3010', '3740', '4010', '6570', '8310']) expect(defaultVatCode(none), none).toBeNull();
  });

  it('gives the starter chart its codes', () => {
    const coded = BAS_STARTER_CHART.filter((account) => defaultVatCode(account.number) !== null).map((account) => account.number);
    expect(coded).toEqual(['3001', '3002', '3003', '3004']);
  });
});
