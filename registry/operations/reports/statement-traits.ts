/** What the four statements share: the date range's help text, their errors and their example. */
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';

/** Every statement reads committed entries only, for a date range in one fiscal year or a whole year, and prints as PDF too. */
export const RANGE_HELP =
  'Only committed entries count. Choose the dates with from and to (inside one fiscal year) or fiscal_year_id; with neither, the fiscal year containing today. ' +
  'Send Accept: application/pdf for a printable PDF of the same report.';

export const ERRORS = ['NO_FISCAL_YEAR', 'DIMENSION_UNKNOWN', 'OBJECT_UNKNOWN'] as const;

export const examples = { params: { companyId: COMPANY_ID }, query: { from: '2026-11-01', to: '2026-11-30' } };
