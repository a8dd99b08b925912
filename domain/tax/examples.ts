import type { z } from 'zod';
import type { VatReturn } from './schemas.ts';
import { COMPANY_ID } from '../ledger/examples.ts';

export const vatReturnExample: z.input<typeof VatReturn> = {
  id: '5c9f2e7b-4a1d-4b36-8d0e-1f6a3c8b5e47',
  company_id: COMPANY_ID,
  period_start: '2026-01-01',
  period_end: '2026-03-31',
  status: 'generated',
  boxes: [
    {
      box: '05',
      label: 'Momspliktig försäljning',
      amount: 35_000_000,
      accounts: [{ account: '3001', name: 'Försäljning inom Sverige, 25 % moms', amount: 35_000_000 }],
    },
    {
      box: '10',
      label: 'Utgående moms 25 %',
      amount: 8_750_000,
      accounts: [{ account: '2611', name: 'Utgående moms på försäljning inom Sverige, 25 %', amount: 8_750_000 }],
    },
    { box: '11', label: 'Utgående moms 12 %', amount: 0, accounts: [] },
    { box: '12', label: 'Utgående moms 6 %', amount: 0, accounts: [] },
    { box: '48', label: 'Ingående moms att dra av', amount: 3_120_000, accounts: [{ account: '2641', name: 'Debiterad ingående moms', amount: 3_120_000 }] },
    { box: '49', label: 'Moms att betala eller få tillbaka', amount: 5_630_000, accounts: [] },
  ],
  output_vat: 8_750_000,
  input_vat: 3_120_000,
  net_vat: 5_630_000,
  currency: 'SEK',
  generated_at: '2026-04-05T09:00:00.000Z',
  submitted_at: null,
};
