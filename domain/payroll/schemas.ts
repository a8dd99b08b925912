import { z } from 'zod';
import { isValidPin, normalisePin } from './personnummer.ts';
import { Ore, OreInput } from '../ledger/schemas.ts';
import { BooksDate, BooksMonth } from '../kernel/books-dates.ts';
import { PaginationQuery } from '../kernel/pagination.ts';

/**
 * Payroll's public shapes: API output and event payloads alike (DESIGN.md §14). The personal
 * identity number is personal data: only getEmployee shows it whole; everything else, events and
 * logs included, carries the masked form YYYYMMDD-****.
 */

const IsoDate = BooksDate;
const Timestamp = z.iso.datetime();
export const Month = BooksMonth.describe('Calendar month, YYYY-MM.');

export const MaskedPin = z
  .string()
  .regex(/^\d{8}-\*{4}$/)
  .describe('Personal identity number with the last four digits hidden, YYYYMMDD-****.');

/** A Swedish personal identity or coordination number, checked (date, checksum) and normalised to YYYYMMDD-NNNN. */
export const PersonalIdentityNumber = z
  .string()
  .trim()
  .max(13)
  .refine(isValidPin, {
    message: 'Not a valid Swedish personal identity number: YYYYMMDD-NNNN with a real date and a correct last (check) digit.',
  })
  .transform(normalisePin)
  .describe('Swedish personal identity (or coordination) number, YYYYMMDD-NNNN; validated by checksum and date.');

export const TaxRate = z
  .number()
  .min(0)
  .max(100)
  .refine((value) => Number.isInteger(Math.round(value * 100)) && Math.abs(value * 100 - Math.round(value * 100)) < 1e-9, {
    message: 'At most two decimals.',
  })
  .describe('Preliminary tax as a percentage of gross pay, e.g. 30 or 32.5.');

export const Employee = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    name: z.string(),
    personal_identity_number: z.string().describe('Masked (YYYYMMDD-****) everywhere except getEmployee.'),
    employment_start: IsoDate,
    employment_end: IsoDate.nullable(),
    monthly_salary: Ore.describe('Gross monthly salary, öre.'),
    tax_rate: z.number().nullable().describe('Preliminary tax, percent of gross; null when tax_amount applies.'),
    tax_amount: Ore.nullable().describe('Preliminary tax, öre a month; null when tax_rate applies.'),
    specification_number: z.number().int().positive().describe("The AGI's specification number (FK570); never changes."),
    workplace_address: z.string().nullable(),
    workplace_city: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .describe('An employee.');
export type Employee = z.infer<typeof Employee>;

const EmployeeName = z.string().trim().min(1).max(200);
const WorkplaceText = z.string().trim().min(1).max(200);
/** Where the employee works (tjänsteställe), which the AGI declares from January 2023. */
const WORKPLACE = {
  workplace_address: WorkplaceText,
  workplace_city: WorkplaceText,
};

const taxRuleRefinement = (body: { tax_rate?: number | undefined; tax_amount?: number | undefined }, issue: z.RefinementCtx) => {
  if ((body.tax_rate === undefined) === (body.tax_amount === undefined)) {
    issue.addIssue({ code: 'custom', path: ['tax_rate'], message: 'Give exactly one of tax_rate (percent) or tax_amount (öre a month).' });
  }
};

export const EmployeeCreateBody = z
  .strictObject({
    name: EmployeeName,
    personal_identity_number: PersonalIdentityNumber,
    employment_start: IsoDate,
    employment_end: IsoDate.optional(),
    monthly_salary: OreInput.describe('Gross monthly salary, öre.'),
    tax_rate: TaxRate.optional(),
    tax_amount: OreInput.optional().describe('Fixed preliminary tax, öre a month.'),
    workplace_address: WORKPLACE.workplace_address.optional(),
    workplace_city: WORKPLACE.workplace_city.optional(),
  })
  .superRefine(taxRuleRefinement);
export type EmployeeCreateBody = z.infer<typeof EmployeeCreateBody>;

export const EmployeeUpdateBody = z
  .strictObject({
    name: EmployeeName.optional(),
    personal_identity_number: PersonalIdentityNumber.optional(),
    employment_start: IsoDate.optional(),
    employment_end: IsoDate.nullable().optional().describe('null: employed until further notice.'),
    monthly_salary: OreInput.optional(),
    tax_rate: TaxRate.optional().describe('Replaces tax_amount.'),
    tax_amount: OreInput.optional().describe('Replaces tax_rate.'),
    workplace_address: WORKPLACE.workplace_address.nullable().optional(),
    workplace_city: WORKPLACE.workplace_city.nullable().optional(),
  })
  .superRefine((body, issue) => {
    if (Object.keys(body).length === 0) issue.addIssue({ code: 'custom', path: [], message: 'Provide at least one field to update.' });
    if (body.tax_rate !== undefined && body.tax_amount !== undefined) {
      issue.addIssue({ code: 'custom', path: ['tax_rate'], message: 'Give tax_rate or tax_amount, not both.' });
    }
  });
export type EmployeeUpdateBody = z.infer<typeof EmployeeUpdateBody>;

export const SalaryRunStatus = z.enum(['draft', 'approved', 'booked', 'cancelled']);

export const SalaryRunLine = z.object({
  employee_id: z.uuid(),
  name: z.string(),
  personal_identity_number: MaskedPin,
  gross: Ore,
  tax: Ore.describe('Preliminary tax withheld.'),
  contributions: Ore.describe('Employer contributions (arbetsgivaravgifter).'),
  contribution_rate: z.number().describe('Percent applied (a blend where a cap splits the pay).'),
  net: Ore.describe('Paid out: gross − tax.'),
});

export const SalaryRun = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    period: Month.describe('Pay month.'),
    pay_date: IsoDate,
    status: SalaryRunStatus,
    employee_count: z.number().int().nonnegative(),
    gross: Ore,
    tax: Ore,
    contributions: Ore,
    net: Ore,
    currency: z.literal('SEK'),
    lines: z.array(SalaryRunLine),
    journal_entry_id: z.uuid().nullable().describe('The committed entry that booked the run.'),
    approved_at: Timestamp.nullable(),
    booked_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .describe('A monthly salary run.');
export type SalaryRun = z.infer<typeof SalaryRun>;

export const SalaryRunCreateBody = z.strictObject({
  period: Month,
  pay_date: IsoDate.optional().describe('Default the 25th of the month.'),
});
export type SalaryRunCreateBody = z.infer<typeof SalaryRunCreateBody>;

/** `from`/`to` of a list of monthly things (salary runs, AGIs): the months, inclusive. */
export const MonthRange = {
  from: Month.optional().describe('Earliest month, inclusive.'),
  to: Month.optional().describe('Latest month, inclusive.'),
};

export const SalaryRunListQuery = z.strictObject({ status: SalaryRunStatus.optional(), ...MonthRange }).extend(PaginationQuery.shape);
export type SalaryRunListQuery = z.infer<typeof SalaryRunListQuery>;

export const AgiListQuery = z.strictObject({ period: Month.optional().describe('One month.'), ...MonthRange }).extend(PaginationQuery.shape);
export type AgiListQuery = z.infer<typeof AgiListQuery>;

/** Who Skatteverket may contact about a declaration (Skatteverket's TEXT50, TEXT20 and EPOST). */
export const AgiContact = z.strictObject({
  name: z.string().trim().min(1).max(50),
  phone: z.string().trim().min(5).max(20),
  email: z.email().max(254),
});
export type AgiContact = z.infer<typeof AgiContact>;

export const AGI_CHANGES = ['new', 'changed', 'unchanged', 'removed'] as const;

export const AgiIndividual = z.object({
  employee_id: z.uuid(),
  name: z.string(),
  personal_identity_number: MaskedPin,
  specification_number: z.number().int().positive().describe('FK570.'),
  gross: Ore,
  tax: Ore,
  contributions: Ore,
  change: z.enum(AGI_CHANGES).describe('Against the version corrected; removed goes as a Borttag.'),
});

export const Agi = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    period: Month,
    version: z.number().int().positive().describe('1, or higher for a correction of a submitted month.'),
    status: z.enum(['generated', 'submitted']),
    gross: Ore.describe('Employer part: total gross pay.'),
    tax: Ore.describe('Employer part: total preliminary tax withheld.'),
    contributions: Ore.describe('Employer part: total employer contributions.'),
    declared: z
      .object({ tax: Ore, contributions: Ore })
      .nullable()
      .describe("The file's FK497 and FK487 in whole kronor, as öre; each part's FK011 and FK001 are its gross and tax, öre dropped."),
    currency: z.literal('SEK'),
    individuals: z.array(AgiIndividual).describe('One individual part (individuppgift) per payee.'),
    corrects_id: z.uuid().nullable().describe('The submitted declaration this version corrects.'),
    generated_at: Timestamp,
    submitted_at: Timestamp.nullable(),
  })
  .describe('Employer declaration (arbetsgivardeklaration, AGI) for a month.');
export type Agi = z.infer<typeof Agi>;

export const AgiGenerateBody = z.strictObject({
  period: Month,
  contact: AgiContact.optional().describe("For Skatteverket; default: the previous AGI's."),
});
export type AgiGenerateBody = z.infer<typeof AgiGenerateBody>;
