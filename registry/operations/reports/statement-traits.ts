/** What the four statements share: the date range's help text, their errors and their example. */
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PDF_LANGUAGES } from '../../../domain/reports/pdf-locale.ts';

/**
 * What every statement says of its figures. The dates (from/to or fiscal_year_id) are their
 * parameters' to explain, the PDF and its language the response's and the Accept-Language
 * parameter's (discovery/openapi.ts), so a description stays within GPT Actions' 300 characters.
 */
export const RANGE_HELP = 'Only committed entries count. Also as a PDF (Accept: application/pdf).';

export const ERRORS = ['NO_FISCAL_YEAR', 'DIMENSION_UNKNOWN', 'OBJECT_UNKNOWN'] as const;

export const examples = { params: { companyId: COMPANY_ID }, query: { from: '2026-11-01', to: '2026-11-30' } };

/** A report's PDF: in Swedish or English, as the caller's Accept-Language chooses (Swedish by default). */
export const PDF = { mediaType: 'application/pdf', languages: PDF_LANGUAGES } as const;
