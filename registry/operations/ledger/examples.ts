import { journalEntryExample } from '../../../domain/ledger/examples.ts';

/** A journal entry before it is committed: no number, voucher, year or period yet. */
export const draftExample = {
  ...journalEntryExample,
  status: 'draft',
  number: null,
  voucher: null,
  fiscal_year_id: null,
  period_id: null,
  committed_at: null,
} as const;
