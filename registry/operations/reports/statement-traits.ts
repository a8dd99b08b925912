/** What the four statements share: the date range's help text, their errors and their example. */
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PDF_LANGUAGES } from '../../../domain/reports/pdf-locale.ts';

/** How a report PDF's language is chosen (pipeline/negotiate.ts, domain/reports/pdf-locale.ts). */
export const PDF_LANGUAGE_HELP =
  `A PDF is entirely in one language, chosen by Accept-Language with quality values (${PDF_LANGUAGES.join(' or ')}; ${PDF_LANGUAGES[0]} by default; ` +
  "en-GB or en-US choose en) and named in the answer's Content-Language.";

/** Every statement reads committed entries only, for a date range in one fiscal year or a whole year, and prints as PDF too. */
export const RANGE_HELP =
  'Only committed entries count. Choose the dates with from and to (inside one fiscal year) or fiscal_year_id; with neither, the fiscal year containing today. ' +
  `Send Accept: application/pdf for a printable PDF of the same report. ${PDF_LANGUAGE_HELP}`;

export const ERRORS = ['NO_FISCAL_YEAR', 'DIMENSION_UNKNOWN', 'OBJECT_UNKNOWN'] as const;

export const examples = { params: { companyId: COMPANY_ID }, query: { from: '2026-11-01', to: '2026-11-30' } };

/** A report's PDF: in Swedish or English, as the caller's Accept-Language chooses (Swedish by default). */
export const PDF = { mediaType: 'application/pdf', languages: PDF_LANGUAGES } as const;
