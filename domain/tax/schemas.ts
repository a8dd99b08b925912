import { z } from 'zod';
import { Ore, SpanFilter } from '../ledger/schemas.ts';
import { PaginationQuery } from '../kernel/pagination.ts';
import { BooksDate } from '../kernel/books-dates.ts';

const IsoDate = BooksDate;
const Timestamp = z.iso.datetime();
const SignedOre = z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).describe('Öre; may be negative.');

export const VatBox = z.object({
  box: z.string().describe('Ruta, e.g. "05" (docs/reference/vat-boxes.md).'),
  label: z.string(),
  amount: SignedOre.describe('As declared: whole kronor, öre dropped, in öre.'),
  accounts: z.array(z.object({ account: z.string(), name: z.string(), amount: SignedOre })).describe('The ledger sums, öre.'),
});

export const SettlementLine = z.object({ account: z.string(), debit: Ore, credit: Ore });

export const VatReturnStatus = z.enum(['generated', 'submitted']);
export const VatReturn = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    period_start: IsoDate,
    period_end: IsoDate.describe('Inclusive.'),
    version: z.number().int().positive().describe('1, or higher for a correction.'),
    corrects_id: z.uuid().nullable().describe('The submitted version this one corrects.'),
    status: VatReturnStatus,
    boxes: z.array(VatBox).describe('Every box in form order.'),
    output_vat: SignedOre.describe('Declared boxes 10-12, 30-32, 60-62.'),
    input_vat: SignedOre.describe('Declared box 48.'),
    net_vat: SignedOre.describe('Box 49: to pay (positive) or reclaim.'),
    settlement: z
      .object({ journal_entry_id: z.uuid().nullable(), lines: z.array(SettlementLine) })
      .describe('The momsavräkning submitting books; its entry once booked.'),
    currency: z.literal('SEK'),
    generated_at: Timestamp,
    submitted_at: Timestamp.nullable(),
  })
  .describe('A VAT return (momsdeklaration) from the committed ledger.');
export type VatReturn = z.infer<typeof VatReturn>;

export const VatReturnListQuery = z.strictObject({ status: VatReturnStatus.optional(), ...SpanFilter }).extend(PaginationQuery.shape);
export type VatReturnListQuery = z.infer<typeof VatReturnListQuery>;

export const VatReturnGenerateBody = z.strictObject({
  period_start: IsoDate.describe('First day of an accounting period, e.g. 2026-07-01.'),
  period_end: IsoDate.describe('Last day of an accounting period, e.g. 2026-09-30 for a quarter.'),
});
export type VatReturnGenerateBody = z.infer<typeof VatReturnGenerateBody>;
