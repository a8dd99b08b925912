import type { z } from 'zod';
import type { VatReturn } from './schemas.ts';
import { COMPANY_ID } from '../ledger/examples.ts';
import { type AccountSum, computeBoxes, settlementLines } from './vat-boxes.ts';

/** A quarter: 350 000 kr of sales at 25 % and 31 200 kr of input VAT (figures the declaration puts in boxes). */
const QUARTER: AccountSum[] = [
  { number: '2611', name: 'Utgående moms på försäljning inom Sverige, 25 %', type: 'equity_liability', vatCode: null, balance: -8_750_000 },
  { number: '2641', name: 'Debiterad ingående moms', type: 'equity_liability', vatCode: null, balance: 3_120_000 },
  { number: '3001', name: 'Försäljning inom Sverige, 25 % moms', type: 'revenue', vatCode: 'standard_25', balance: -35_000_000 },
];

export const vatReturnExample: z.input<typeof VatReturn> = {
  id: '5c9f2e7b-4a1d-4b36-8d0e-1f6a3c8b5e47',
  company_id: COMPANY_ID,
  period_start: '2026-01-01',
  period_end: '2026-03-31',
  version: 1,
  corrects_id: null,
  status: 'generated',
  // A representative slice: the boxes this quarter fills. A real return lists all 29 in form order
  // (docs/reference/vat-boxes.md); the 25 empty ones would only repeat the shape, in every VAT example.
  boxes: computeBoxes(QUARTER)
    .filter((box) => box.amount !== 0)
    .map(({ exact: _ledgerSum, ...box }) => box),
  output_vat: 8_750_000,
  input_vat: 3_120_000,
  net_vat: 5_630_000,
  settlement: {
    journal_entry_id: null,
    lines: settlementLines(
      new Map([
        ['2611', -8_750_000],
        ['2641', 3_120_000],
      ]),
      0,
      5_630_000,
    ),
  },
  currency: 'SEK',
  generated_at: '2026-04-05T09:00:00.000Z',
  submitted_at: null,
};

export const submittedVatReturnExample: z.input<typeof VatReturn> = {
  ...vatReturnExample,
  status: 'submitted',
  settlement: { ...vatReturnExample.settlement, journal_entry_id: '9a4c1e7f-2b5d-4f83-a6e0-3d8b7c2f1e94' },
  submitted_at: '2026-04-12T13:05:47.000Z',
};
