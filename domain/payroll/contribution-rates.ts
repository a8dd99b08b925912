import type { Db } from '../db/client.ts';
import { DomainError } from '../kernel/errors.ts';

/**
 * Employer contributions (arbetsgivaravgifter) come from dated rows in the database
 * (employer_contribution_rates, seeded by migration with the law each row comes from; a new
 * rate is a new row, never a code change). Rates are in hundredths of a percent (3142 = 31.42 %).
 * docs/tax.md#employer-contributions lists the rows and their sources.
 */
export interface ContributionRate {
  id: string;
  validFrom: string;
  /** Inclusive; null while no end is known. */
  validTo: string | null;
  /** Applies to people born this year or earlier. */
  bornTo: number | null;
  /** Applies from this age at the start of the pay year ("vid årets ingång har fyllt") … */
  ageFrom: number | null;
  /** … up to, not including, this age. */
  ageTo: number | null;
  rateHundredths: number;
  /** Öre a calendar month the rate applies to; pay above it takes the next row that applies. */
  capPerMonth: number | null;
  precedence: number;
  source: string;
}

/** The rows in force on a pay date, in the order they are tried. */
export async function contributionRatesOn(db: Db, payDate: string): Promise<ContributionRate[]> {
  const rows = await db.$queryRaw<(Omit<ContributionRate, 'capPerMonth'> & { capPerMonth: bigint | null })[]>`
    SELECT id, valid_from::text AS "validFrom", valid_to::text AS "validTo", born_to AS "bornTo", age_from AS "ageFrom", age_to AS "ageTo",
           rate_hundredths AS "rateHundredths", cap_per_month AS "capPerMonth", precedence, source
      FROM employer_contribution_rates
     WHERE valid_from <= ${payDate}::date AND (valid_to IS NULL OR valid_to >= ${payDate}::date)
     ORDER BY precedence, id`;
  return rows.map((row) => ({ ...row, capPerMonth: row.capPerMonth === null ? null : Number(row.capPerMonth) }));
}

/** The age reached by the end of the year before the pay year: the law's "vid årets ingång". */
export const ageAtYearStart = (birthYear: number, payDate: string): number => Number(payDate.slice(0, 4)) - 1 - birthYear;

const applies = (rate: ContributionRate, birthYear: number, age: number): boolean =>
  (rate.bornTo === null || birthYear <= rate.bornTo) && (rate.ageFrom === null || age >= rate.ageFrom) && (rate.ageTo === null || age < rate.ageTo);

/** A part of the pay and the rate it bears. */
export interface ContributionPart {
  rateHundredths: number;
  /** Öre. */
  base: number;
}

/**
 * Splits a month's pay over the rates that apply to the employee: the first applicable row takes
 * the pay up to its cap, the next applicable row the rest, and so on (the youth reduction of
 * SFS 2026:100 covers 25 000 kr a month; above that the standard rate applies).
 */
export function contributionParts(gross: number, birthYear: number, payDate: string, rates: readonly ContributionRate[]): ContributionPart[] {
  const age = ageAtYearStart(birthYear, payDate);
  const parts: ContributionPart[] = [];
  let remaining = gross;
  for (const rate of rates) {
    if (remaining === 0) break;
    if (!applies(rate, birthYear, age)) continue;
    const base = rate.capPerMonth === null ? remaining : Math.min(remaining, rate.capPerMonth);
    parts.push({ rateHundredths: rate.rateHundredths, base });
    remaining -= base;
  }
  if (remaining > 0) {
    throw new DomainError('VALIDATION_ERROR', {
      message: `No employer contribution rate on file covers pay on ${payDate}.`,
      details: [{ path: 'body.pay_date', message: 'Outside the dated contribution rates the service knows (docs/tax.md#employer-contributions).' }],
    });
  }
  return parts;
}

export interface Contribution {
  /** Öre, each part rounded to the nearest öre. */
  amount: number;
  /** The effective rate in hundredths of a percent (a blend when a cap splits the pay). */
  rateHundredths: number;
}

const percentOf = (amount: number, hundredths: number): number => Number((BigInt(amount) * BigInt(hundredths) + 5000n) / 10000n);

/** Contributions on `gross` öre paid on `payDate` (YYYY-MM-DD) to someone born in `birthYear`. */
export function employerContribution(gross: number, birthYear: number, payDate: string, rates: readonly ContributionRate[]): Contribution {
  const parts = contributionParts(gross, birthYear, payDate, rates);
  const amount = parts.reduce((sum, part) => sum + percentOf(part.base, part.rateHundredths), 0);
  const single = parts.length === 1 ? parts[0]!.rateHundredths : null;
  return { amount, rateHundredths: single ?? (gross === 0 ? 0 : Math.round((amount * 10000) / gross)) };
}

/** Preliminary tax: a percentage of gross rounded down to whole kronor (as the tax tables do), or a fixed amount. */
export function preliminaryTax(gross: number, rule: { rateHundredths: number | null; amount: number | null }): number {
  if (rule.amount !== null) return Math.min(rule.amount, gross);
  const exact = (BigInt(gross) * BigInt(rule.rateHundredths ?? 0)) / 10000n;
  return Number((exact / 100n) * 100n);
}
