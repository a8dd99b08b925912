/**
 * Employer contributions (arbetsgivaravgifter) by the employee's birth year, as they apply on the
 * pay date. Rates in hundredths of a percent (3142 = 31.42 %), as Skatteverket publishes them for
 * 2024-2026, including the temporary youth reduction for pay from 1 April 2026 to 30 September
 * 2027. A new rate is a new dated row here; check Skatteverket's tables before each year.
 *
 * - standard: 31.42 %.
 * - Turned 66 before the year began (born ≤ payYear − 67): only the retirement-pension part, 10.21 %.
 * - Born 1937 or earlier: no contributions.
 * - Youth reduction while it applies: turned 19 but not 23 before the year began (born payYear − 23
 *   … payYear − 20): 20.81 % on pay up to 25,000 kr a month, the standard rate above that.
 */

export const STANDARD_RATE = 3142;
export const PENSION_ONLY_RATE = 1021;
export const PENSION_ONLY_FROM_AGE = 66;
export const NO_CONTRIBUTIONS_BORN_BEFORE = 1938;

export interface YouthReduction {
  from: string;
  to: string;
  rate: number;
  /** Turned at least this many years before the year began … */
  minAge: number;
  /** … and fewer than this. */
  maxAgeExclusive: number;
  /** Monthly pay the reduced rate applies to, öre. */
  capPerMonth: number;
}

export const YOUTH_REDUCTIONS: readonly YouthReduction[] = [
  { from: '2026-04-01', to: '2027-09-30', rate: 2081, minAge: 19, maxAgeExclusive: 23, capPerMonth: 2_500_000 },
];

export interface Contribution {
  /** Öre, rounded to the nearest öre. */
  amount: number;
  /** The effective rate in hundredths of a percent (a blend when a cap splits the pay). */
  rateHundredths: number;
}

const percentOf = (amount: number, hundredths: number): number => Number((BigInt(amount) * BigInt(hundredths) + 5000n) / 10000n);

/** Contributions on `gross` öre paid on `payDate` (YYYY-MM-DD) to someone born in `birthYear`. */
export function employerContribution(gross: number, birthYear: number, payDate: string): Contribution {
  const payYear = Number(payDate.slice(0, 4));
  // Age reached by the end of the year before the pay year ("fyllt … vid årets ingång").
  const ageAtYearStart = payYear - 1 - birthYear;
  if (birthYear < NO_CONTRIBUTIONS_BORN_BEFORE) return { amount: 0, rateHundredths: 0 };
  if (ageAtYearStart >= PENSION_ONLY_FROM_AGE) return { amount: percentOf(gross, PENSION_ONLY_RATE), rateHundredths: PENSION_ONLY_RATE };
  const youth = YOUTH_REDUCTIONS.find((r) => r.from <= payDate && payDate <= r.to && ageAtYearStart >= r.minAge && ageAtYearStart < r.maxAgeExclusive);
  if (youth) {
    const reducedPart = Math.min(gross, youth.capPerMonth);
    const amount = percentOf(reducedPart, youth.rate) + percentOf(gross - reducedPart, STANDARD_RATE);
    return { amount, rateHundredths: gross === reducedPart ? youth.rate : Math.round((amount * 10000) / gross) };
  }
  return { amount: percentOf(gross, STANDARD_RATE), rateHundredths: STANDARD_RATE };
}

/** Preliminary tax: a percentage of gross rounded down to whole kronor (as the tax tables do), or a fixed amount. */
export function preliminaryTax(gross: number, rule: { rateHundredths: number | null; amount: number | null }): number {
  if (rule.amount !== null) return Math.min(rule.amount, gross);
  const exact = (BigInt(gross) * BigInt(rule.rateHundredths ?? 0)) / 10000n;
  return Number((exact / 100n) * 100n);
}
