import { describe, expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { contributionRatesOn, employerContribution, preliminaryTax, type ContributionRate } from '../../../domain/payroll/contribution-rates.ts';

/**
 * The dated rows against the law's own figures (docs/tax.md#employer-contributions):
 * - Socialavgiftslagen (2000:980) 2 kap. 26 §: sjukförsäkringsavgift 3,55, föräldraförsäkringsavgift
 *   2,60, ålderspensionsavgift 10,21, efterlevandepensionsavgift 0,60, arbetsmarknadsavgift 2,64,
 *   arbetsskadeavgift 0,20 % (19,80 %); lag (1994:1920) om allmän löneavgift 3 §: 11,62 %.
 * - SAL 2 kap. 27 §: only ålderspensionsavgiften from the age reached at the year's start, 66 in
 *   2023-2025 and, tied to riktåldern för pension from 2026 (prop. 2021/22:181), 67 in 2026
 *   (förordning 2019:780: riktåldern 67 år för år 2026).
 * - SFS 2026:100 2 §: "fyllt 18 men inte 23 år vid årets ingång": the whole ålderspensionsavgift
 *   and half of the other fees and the löneavgift, "två decimaler så att övriga decimaler faller
 *   bort", on pay up to 25 000 kr a calendar month; in force for pay 1 April 2026 – 30 September 2027.
 */
const SAL_2_26 = { sjuk: 355, foralder: 260, alderspension: 1021, efterlevande: 60, arbetsmarknad: 264, arbetsskada: 20 };
const ALLMAN_LONEAVGIFT = 1162;
const SOCIAL_FEES = Object.values(SAL_2_26).reduce((sum, part) => sum + part, 0);
const STANDARD = SOCIAL_FEES + ALLMAN_LONEAVGIFT;
const PENSION_ONLY = SAL_2_26.alderspension;
// "bara hälften av de övriga ... två decimaler så att övriga decimaler faller bort": floor of the half.
const YOUTH_2026 = SAL_2_26.alderspension + Math.floor((STANDARD - SAL_2_26.alderspension) / 2);
const YOUTH_CAP_KR = 25_000;

/** 20 000 kr a month, in öre, and the contributions at a rate in hundredths of a percent, in öre. */
const PAY = 2_000_000;
const at = (rate: number, pay = PAY) => (pay * rate) / 10_000;

engineSuite('employer contribution rates as dated rows', {}, (t) => {
  const ratesOn = (date: string): Promise<ContributionRate[]> => contributionRatesOn(t.services.database.prisma, date);
  const contribution = async (birthYear: number, payDate: string, pay = PAY) => employerContribution(pay, birthYear, payDate, await ratesOn(payDate));

  it('the law gives 31,42 % standard, 10,21 % pension only and 20,81 % for the young in 2026', () => {
    expect(STANDARD).toBe(3142);
    expect(PENSION_ONLY).toBe(1021);
    expect(YOUTH_2026).toBe(2081);
  });

  it('2025: standard rows, pension only from 66 at the start of the year, nothing for those born 1937 or earlier, no youth reduction', async () => {
    const rows = await ratesOn('2025-06-25');
    expect(rows.map((row) => row.id)).toEqual(['born-1937-or-earlier', 'pension-only-66', 'standard']);
    expect(rows.find((row) => row.id === 'standard')).toMatchObject({ rateHundredths: STANDARD, bornTo: null, ageFrom: null, capPerMonth: null });
    expect(rows.find((row) => row.id === 'pension-only-66')).toMatchObject({ rateHundredths: PENSION_ONLY, ageFrom: 66, ageTo: null, validTo: '2025-12-31' });
    expect(rows.find((row) => row.id === 'born-1937-or-earlier')).toMatchObject({ rateHundredths: 0, bornTo: 1937 });
    for (const row of rows) expect(row.source.length, row.id).toBeGreaterThan(20);
  });

  it('2026: the youth row of SFS 2026:100 exactly as the law words it, and pension only from 67 (riktåldern)', async () => {
    expect((await ratesOn('2026-03-31')).map((row) => row.id)).toEqual(['born-1937-or-earlier', 'pension-only-67', 'standard']);
    const june = await ratesOn('2026-06-25');
    expect(june.map((row) => row.id)).toEqual(['born-1937-or-earlier', 'pension-only-67', 'youth-2026', 'standard']);
    expect(june.find((row) => row.id === 'youth-2026')).toMatchObject({
      validFrom: '2026-04-01',
      validTo: '2027-09-30',
      ageFrom: 18,
      ageTo: 23,
      rateHundredths: YOUTH_2026,
      capPerMonth: YOUTH_CAP_KR * 100,
    });
    expect(june.find((row) => row.id === 'pension-only-67')).toMatchObject({ rateHundredths: PENSION_ONLY, ageFrom: 67 });
    expect((await ratesOn('2027-09-30')).map((row) => row.id)).toContain('youth-2026');
    expect((await ratesOn('2027-10-01')).map((row) => row.id)).not.toContain('youth-2026');
  });

  it('June 2026, 20 000 kr: the 2007, 2003, 1959 and 1937 cohorts and the standard rate, worked out by hand', async () => {
    // 2007: 18 at the start of 2026, youth rate: 20 000 × 20,81 % = 4 162,00 kr.
    expect(await contribution(2007, '2026-06-25')).toEqual({ amount: 416_200, rateHundredths: 2081 });
    expect(at(YOUTH_2026)).toBe(416_200);
    // 2003: 22, still "inte 23": youth rate.
    expect(await contribution(2003, '2026-06-25')).toEqual({ amount: 416_200, rateHundredths: 2081 });
    // 2002: 23, the standard 31,42 % = 6 284,00 kr.
    expect(await contribution(2002, '2026-06-25')).toEqual({ amount: 628_400, rateHundredths: 3142 });
    // 1959: 66 at the start of 2026, under riktåldern 67: the standard rate.
    expect(await contribution(1959, '2026-06-25')).toEqual({ amount: 628_400, rateHundredths: 3142 });
    // 1958: 67: only the ålderspensionsavgift, 10,21 % = 2 042,00 kr.
    expect(await contribution(1958, '2026-06-25')).toEqual({ amount: 204_200, rateHundredths: 1021 });
    // 1937: nothing at all.
    expect(await contribution(1937, '2026-06-25')).toEqual({ amount: 0, rateHundredths: 0 });
    expect(await contribution(1938, '2026-06-25')).toEqual({ amount: 204_200, rateHundredths: 1021 });
    // Standard: born 1981.
    expect(await contribution(1981, '2026-06-25')).toEqual({ amount: at(STANDARD), rateHundredths: STANDARD });
  });

  it('the youth rate covers 25 000 kr a month; the rest bears the standard rate', async () => {
    // 30 000 kr: 25 000 × 20,81 % = 5 202,50 kr + 5 000 × 31,42 % = 1 571,00 kr.
    const split = await contribution(2007, '2026-06-25', 3_000_000);
    expect(split.amount).toBe(520_250 + 157_100);
    expect(split.amount).toBe(at(YOUTH_2026, YOUTH_CAP_KR * 100) + at(STANDARD, 500_000));
  });

  it('2025 and the edges of the youth period', async () => {
    expect(await contribution(1959, '2025-06-25')).toEqual({ amount: 628_400, rateHundredths: 3142 });
    expect(await contribution(1958, '2025-06-25')).toEqual({ amount: 204_200, rateHundredths: 1021 });
    expect(await contribution(2005, '2025-06-25')).toEqual({ amount: 628_400, rateHundredths: 3142 });
    expect(await contribution(2007, '2026-03-25')).toEqual({ amount: 628_400, rateHundredths: 3142 });
    expect(await contribution(2005, '2027-09-25')).toEqual({ amount: 416_200, rateHundredths: 2081 });
    expect(await contribution(2005, '2027-10-25')).toEqual({ amount: 628_400, rateHundredths: 3142 });
  });

  it('refuses a pay date no row covers, naming it', async () => {
    expect(() => employerContribution(PAY, 1981, '2019-06-25', [])).toThrow(/2019-06-25/);
  });
});

describe('preliminary tax', () => {
  it('rounds a percentage down to whole kronor, and caps a fixed amount at gross', () => {
    expect(preliminaryTax(4_212_345, { rateHundredths: 3000, amount: null })).toBe(1_263_700);
    expect(preliminaryTax(500_000, { rateHundredths: null, amount: 700_000 })).toBe(500_000);
  });
});
