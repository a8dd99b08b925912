import { z } from 'zod';
import { AccountNumber, Ore } from '../ledger/schemas.ts';

const IsoDate = z.iso.date();
const Timestamp = z.iso.datetime();
const SignedOre = z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).describe('Öre; may be negative.');

export const VAT_BOXES = ['05', '10', '11', '12', '48', '49'] as const;

export const VatBox = z.object({
  box: z.enum(VAT_BOXES).describe("Box (ruta) of Skatteverket's VAT return."),
  label: z.string(),
  amount: SignedOre,
  accounts: z
    .array(z.object({ account: AccountNumber, name: z.string(), amount: SignedOre }))
    .describe('The accounts and sums the box came from (empty for box 49, which is computed).'),
});

export const VatReturn = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    period_start: IsoDate,
    period_end: IsoDate.describe('Inclusive.'),
    status: z.enum(['generated', 'submitted']),
    boxes: z.array(VatBox),
    output_vat: Ore.describe('Boxes 10 + 11 + 12.'),
    input_vat: Ore.describe('Box 48.'),
    net_vat: SignedOre.describe('Box 49: to pay (positive) or to reclaim (negative).'),
    currency: z.literal('SEK'),
    generated_at: Timestamp,
    submitted_at: Timestamp.nullable(),
  })
  .describe('A VAT return (momsdeklaration) generated from the committed ledger.');
export type VatReturn = z.infer<typeof VatReturn>;

export const VatReturnGenerateBody = z.strictObject({
  period_start: IsoDate.describe('First day of an accounting period, e.g. 2026-07-01.'),
  period_end: IsoDate.describe('Last day of an accounting period, e.g. 2026-09-30 for a quarter.'),
});
export type VatReturnGenerateBody = z.infer<typeof VatReturnGenerateBody>;
