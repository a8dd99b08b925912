import { describe, expect, it } from 'vitest';
import { employerContribution, preliminaryTax } from '../../domain/payroll/contribution-rates.ts';

describe('employer contributions by birth year and pay date', () => {
  it('charges 31.42 % as standard', () => {
    expect(employerContribution(4_200_000, 1981, '2026-11-25')).toEqual({ amount: 1_319_640, rateHundredths: 3142 });
  });

  it('charges only the pension part, 10.21 %, to those who turned 66 before the year began', () => {
    expect(employerContribution(3_000_000, 1959, '2026-06-25').rateHundredths).toBe(1021);
    // Born 1960 turns 66 during 2026: still the standard rate that year.
    expect(employerContribution(3_000_000, 1960, '2026-06-25').rateHundredths).toBe(3142);
  });

  it('charges nothing for those born 1937 or earlier', () => {
    expect(employerContribution(1_000_000, 1937, '2026-06-25')).toEqual({ amount: 0, rateHundredths: 0 });
  });

  it('applies the youth reduction only while it is in force, and only up to its monthly cap', () => {
    expect(employerContribution(2_000_000, 2005, '2026-03-25').rateHundredths).toBe(3142);
    expect(employerContribution(2_000_000, 2005, '2026-04-25')).toEqual({ amount: 416_200, rateHundredths: 2081 });
    // 30,000 kr: 25,000 at 20.81 % + 5,000 at 31.42 %.
    expect(employerContribution(3_000_000, 2005, '2026-04-25').amount).toBe(520_250 + 157_100);
    expect(employerContribution(2_000_000, 2002, '2026-04-25').rateHundredths).toBe(3142);
    expect(employerContribution(2_000_000, 2005, '2027-10-25').rateHundredths).toBe(3142);
  });
});

describe('preliminary tax', () => {
  it('rounds a percentage down to whole kronor, and caps a fixed amount at gross', () => {
    expect(preliminaryTax(4_212_345, { rateHundredths: 3000, amount: null })).toBe(1_263_700);
    expect(preliminaryTax(500_000, { rateHundredths: null, amount: 700_000 })).toBe(500_000);
  });
});
