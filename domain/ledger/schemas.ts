import { z } from 'zod';
import { MAX_AMOUNT_ORE } from './amount-limits.ts';
import { BooksDate } from '../kernel/books-dates.ts';
import { PaginationQuery } from '../kernel/pagination.ts';
import { wrongTypeMessage } from '../kernel/value-forms.ts';
import { LineObject, LineObjects } from './dimension-schemas.ts';

/**
 * The public shapes of the books: what the API returns, what event payloads carry (DESIGN.md §14:
 * one schema for both) and what callers send. Money is integer öre, never a float.
 */

/**
 * BAS four-digit accounts in classes 1-9, and sub-accounts of one or two more digits as Swedish
 * programs write them in SIE files (19301 under 1930); the first four digits are the BAS account
 * the reports group it with. The accounts table's CHECK holds the same pattern.
 */
export const ACCOUNT_NUMBER_PATTERN = /^[1-9]\d{3}\d{0,2}$/;

export const AccountNumber = z
  .string()
  .regex(ACCOUNT_NUMBER_PATTERN, 'A BAS account number: four digits 1000-9999, or a sub-account of five or six digits.')
  .describe('BAS account number, e.g. "1930" (bank); 4-6 digits.');

export const ACCOUNT_TYPES = ['asset', 'equity_liability', 'revenue', 'expense', 'financial', 'internal'] as const;
export const AccountType = z
  .enum(ACCOUNT_TYPES)
  .describe('From the class (first digit): 1 asset, 2 equity_liability, 3 revenue, 4-7 expense, 8 financial, 9 internal.');

/**
 * What is booked on an account, as far as the VAT return cares: domestic sales at 25, 12 or 6 %
 * or exempt, and the kinds of sale and purchase Skatteverket's boxes 06-08, 20-24, 35-42 and 50
 * ask for. Which box each feeds: domain/tax/vat-boxes.ts (and docs/reference/vat-boxes.md).
 */
export const VAT_CODES = [
  'standard_25',
  'reduced_12',
  'reduced_6',
  'exempt',
  'withdrawal',
  'margin_scheme',
  'rental_voluntary',
  'eu_goods_purchase',
  'eu_service_purchase',
  'non_eu_service_purchase',
  'se_reverse_charge_goods_purchase',
  'se_reverse_charge_service_purchase',
  'import_goods',
  'eu_goods_sale',
  'export_goods',
  'triangular_purchase',
  'triangular_sale',
  'eu_service_sale',
  'export_services',
  'se_reverse_charge_sale',
] as const;
export type VatCodeValue = (typeof VAT_CODES)[number];
export const VatCode = z.enum(VAT_CODES).describe("For the VAT return's boxes.");

/** What an amount is, said once: the schema's description and every wrong-type error repeat it. */
export const ORE_NOTE = 'Whole öre, an integer: 12500 = 125,00 kr.';
const oreTypeError = (issue: { input?: unknown }): string => wrongTypeMessage(['integer'], issue.input, ORE_NOTE);
/** Öre as a JSON integer: never a float, never beyond what JSON numbers carry exactly. */
export const Ore = z.number({ error: oreTypeError }).int({ error: oreTypeError }).min(0).max(Number.MAX_SAFE_INTEGER).describe(ORE_NOTE);

/** Öre a caller sends: bounded so no sum the books form can leave what JSON carries (docs/amounts.md). */
export const OreInput = z
  .number({ error: oreTypeError })
  .int({ error: oreTypeError })
  .min(0)
  .max(MAX_AMOUNT_ORE, `At most ${MAX_AMOUNT_ORE} öre (100 000 000 000 kr) per amount.`)
  .describe(ORE_NOTE);

const IsoDate = BooksDate;
const Timestamp = z.iso.datetime();

export const Account = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    number: AccountNumber,
    name: z.string(),
    type: AccountType,
    vat_code: VatCode.nullable(),
    active: z.boolean().describe('Inactive accounts keep their history but take no new postings.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .describe('An account of the chart of accounts.');
export type Account = z.infer<typeof Account>;

const AccountName = z.string().trim().min(1).max(200);

export const AccountCreateBody = z.strictObject({
  number: AccountNumber,
  name: AccountName.describe('Account name, e.g. "Företagskonto".'),
  vat_code: VatCode.nullable().optional(),
  active: z.boolean().optional().describe('Default true.'),
});
export type AccountCreateBody = z.infer<typeof AccountCreateBody>;

export const AccountUpdateBody = z
  .strictObject({
    name: AccountName.optional(),
    active: z.boolean().optional(),
    vat_code: VatCode.nullable().optional().describe('null removes the VAT code.'),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'Provide at least one of name, active, vat_code.' });
export type AccountUpdateBody = z.infer<typeof AccountUpdateBody>;

const BooleanFlag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const AccountListQuery = z
  .strictObject({
    number_from: AccountNumber.optional().describe('Lowest account number to include.'),
    number_to: AccountNumber.optional().describe('Highest account number to include.'),
    type: AccountType.optional(),
    active: BooleanFlag.optional().describe('true or false.'),
  })
  .extend(PaginationQuery.shape);
export type AccountListQuery = z.infer<typeof AccountListQuery>;

export const FiscalYearStatus = z.enum(['open', 'closed']);
export const FiscalYear = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    start_date: IsoDate,
    end_date: IsoDate.describe('Inclusive.'),
    status: FiscalYearStatus,
    closed_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .describe('A fiscal year (räkenskapsår), split into monthly periods.');
export type FiscalYear = z.infer<typeof FiscalYear>;

export const FiscalYearCreateBody = z.strictObject({
  start_date: IsoDate.describe('First day of a month, e.g. 2026-01-01.'),
  end_date: IsoDate.optional().describe('Last day of a month, 1-18 months on; default 12 months.'),
});
export type FiscalYearCreateBody = z.infer<typeof FiscalYearCreateBody>;

export const PeriodStatus = z.enum(['open', 'locked']);
export const Period = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    fiscal_year_id: z.uuid(),
    start_date: IsoDate,
    end_date: IsoDate.describe('Inclusive.'),
    status: PeriodStatus.describe('Locked periods take no new commits.'),
    locked_at: Timestamp.nullable(),
  })
  .describe('An accounting period: one calendar month of a fiscal year.');
export type Period = z.infer<typeof Period>;

/**
 * `from`/`to` of a list of things that span dates (periods, fiscal years, VAT returns): the ones
 * that overlap the range, so `from=2026-03-15` still finds March, and `to` alone is everything up to it.
 */
export const SpanFilter = {
  from: IsoDate.optional().describe('Only those ending on or after this date.'),
  to: IsoDate.optional().describe('Only those starting on or before this date.'),
};

export const FiscalYearListQuery = z.strictObject({ status: FiscalYearStatus.optional(), ...SpanFilter }).extend(PaginationQuery.shape);
export type FiscalYearListQuery = z.infer<typeof FiscalYearListQuery>;

export const PeriodListQuery = z
  .strictObject({
    fiscal_year_id: z.uuid().optional(),
    status: PeriodStatus.optional(),
    ...SpanFilter,
  })
  .extend(PaginationQuery.shape);
export type PeriodListQuery = z.infer<typeof PeriodListQuery>;

export const Series = z
  .string()
  .regex(/^[A-Z]{1,4}$/, 'One to four capital letters.')
  .describe('Voucher series (verifikationsserie), 1-4 capital letters; default "A".');

export const JournalLine = z.object({
  line: z.number().int().positive().describe('Line number within the entry, from 1.'),
  account: AccountNumber,
  account_name: z.string(),
  debit: Ore,
  credit: Ore,
  description: z.string().nullable(),
  objects: z.array(LineObject).describe('Objects (cost centre, project, …) by dimension number.'),
});
export type JournalLine = z.infer<typeof JournalLine>;

/** The states an entry is stored in (journal_entries.status); `reversed` is derived from a reversal pointing at it. */
export const ENTRY_STATES = ['draft', 'committed'] as const;

export const JournalEntryStatus = z
  .enum([...ENTRY_STATES, 'reversed'])
  .describe('draft (editable, deletable), committed (numbered, fixed), reversed (committed, then reversed).');

export const JournalEntry = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    series: Series,
    number: z.number().int().positive().nullable().describe('Gapless within series and fiscal year; null for drafts.'),
    voucher: z.string().nullable().describe('Series and number, e.g. "A12"; null for drafts.'),
    date: IsoDate.describe('Accounting date.'),
    description: z.string(),
    status: JournalEntryStatus,
    currency: z.literal('SEK'),
    fiscal_year_id: z.uuid().nullable(),
    period_id: z.uuid().nullable(),
    total: Ore.describe('Sum of the debits (equals the credits once committed).'),
    lines: z.array(JournalLine),
    reverses_id: z.uuid().nullable().describe('The entry this one reverses.'),
    reversed_by_id: z.uuid().nullable().describe('The entry that reversed this one.'),
    // An imported entry's series and number in the program that exported it (docs/sie.md); null otherwise.
    source: z.object({ series: z.string(), number: z.string() }).nullable(),
    committed_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .describe('A journal entry (verifikation).');
export type JournalEntry = z.infer<typeof JournalEntry>;

const LineDescription = z.string().trim().min(1).max(500);

export const JournalLineInput = z
  .strictObject({
    account: AccountNumber,
    debit: OreInput.optional(),
    credit: OreInput.optional(),
    description: LineDescription.optional(),
    objects: LineObjects.optional(),
  })
  .superRefine((line, issue) => {
    const debit = line.debit ?? 0;
    const credit = line.credit ?? 0;
    if (debit > 0 === credit > 0) {
      issue.addIssue({
        code: 'custom',
        path: [debit > 0 ? 'credit' : 'debit'],
        message: 'A line is either a debit or a credit: give exactly one positive amount.',
      });
    }
  });

export const MIN_LINES = 2;
export const MAX_LINES = 500;

export const JournalEntryCreateBody = z.strictObject({
  date: IsoDate.describe('Accounting date.'),
  description: LineDescription.describe('What happened, e.g. "Office supplies".'),
  series: Series.optional(),
  lines: z.array(JournalLineInput).min(MIN_LINES).max(MAX_LINES).describe('At least two; debits must equal credits to commit.'),
});
export type JournalEntryCreateBody = z.infer<typeof JournalEntryCreateBody>;

export const JournalEntryListQuery = z.strictObject({
  date_from: IsoDate.optional().describe('Earliest date, inclusive.'),
  date_to: IsoDate.optional().describe('Latest date, inclusive.'),
  account: AccountNumber.optional().describe('Only entries with a line on this account.'),
  status: JournalEntryStatus.optional(),
  series: Series.optional(),
});
export type JournalEntryListQuery = z.infer<typeof JournalEntryListQuery>;

// The body is optional: an empty POST reverses as of today.
export const ReverseBody = z
  .strictObject({
    date: IsoDate.optional().describe('Date of the reversal, in an open period; default today.'),
    description: LineDescription.optional().describe('Default "Reversal of <voucher>: <description>".'),
  })
  .default({});
export type ReverseBody = z.infer<typeof ReverseBody>;

/** `YYYY-MM-DD` ↔ the UTC midnight Prisma uses for SQL `date` columns. */
export const toSqlDate = (isoDate: string): Date => new Date(`${isoDate}T00:00:00.000Z`);
export const fromSqlDate = (date: Date): string => date.toISOString().slice(0, 10);
