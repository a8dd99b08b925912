import type { z } from 'zod';
import type { Account, FiscalYear, JournalEntry, Period } from './schemas.ts';
import type { Dimension, DimensionObject } from './dimension-schemas.ts';

/** Realistic examples of the books' objects: OpenAPI, docs and the event catalogue all show these. */

export const COMPANY_ID = '8b0f6c2e-4d1a-4e3b-9f7c-2a5d8e1b6c40';
export const ENTRY_ID = '1c7e3a90-5b2d-4f8e-a6c1-9d4b7e2f0a35';

export const accountExample: z.input<typeof Account> = {
  id: '4a9d2f61-7c3e-4b85-8e0a-6f1c3d9b2e74',
  company_id: COMPANY_ID,
  number: '1930',
  name: 'Företagskonto',
  type: 'asset',
  vat_code: null,
  active: true,
  created_at: '2026-01-02T08:00:00.000Z',
  updated_at: '2026-11-12T09:30:00.000Z',
};

export const FISCAL_YEAR_ID = 'c4a1e8f3-2b7d-4960-8a3c-6d9f1b5e2c74';
export const PERIOD_ID = '6e2b8d14-3f9a-4c07-b5e1-0a7d4c9f3b28';

export const journalEntryExample: z.input<typeof JournalEntry> = {
  id: ENTRY_ID,
  company_id: COMPANY_ID,
  series: 'A',
  number: 142,
  voucher: 'A142',
  date: '2026-11-12',
  description: 'Kontorsmaterial, Clas Ohlson',
  status: 'committed',
  currency: 'SEK',
  fiscal_year_id: FISCAL_YEAR_ID,
  period_id: PERIOD_ID,
  total: 50_000,
  lines: [
    {
      line: 1,
      account: '6110',
      account_name: 'Kontorsmateriel',
      debit: 40_000,
      credit: 0,
      description: 'Kontorsmaterial',
      objects: [{ dimension: 1, object: 'Nord' }],
    },
    { line: 2, account: '2641', account_name: 'Debiterad ingående moms', debit: 10_000, credit: 0, description: null, objects: [] },
    { line: 3, account: '1930', account_name: 'Företagskonto / affärskonto', debit: 0, credit: 50_000, description: null, objects: [] },
  ],
  reverses_id: null,
  reversed_by_id: null,
  source: null,
  committed_at: '2026-11-12T10:04:11.000Z',
  created_at: '2026-11-12T10:01:37.000Z',
};

export const periodExample: z.input<typeof Period> = {
  id: PERIOD_ID,
  company_id: COMPANY_ID,
  fiscal_year_id: FISCAL_YEAR_ID,
  start_date: '2026-10-01',
  end_date: '2026-10-31',
  status: 'locked',
  locked_at: '2026-11-05T16:20:00.000Z',
};

export const fiscalYearExample: z.input<typeof FiscalYear> = {
  id: FISCAL_YEAR_ID,
  company_id: COMPANY_ID,
  start_date: '2026-01-01',
  end_date: '2026-12-31',
  status: 'open',
  closed_at: null,
  created_at: '2026-01-02T08:00:00.000Z',
};

export const dimensionExample: z.input<typeof Dimension> = {
  company_id: COMPANY_ID,
  number: 1,
  name: 'Kostnadsställe',
  kind: 'cost_centre',
  parent_number: null,
  created_at: '2026-01-02T08:00:00.000Z',
  updated_at: '2026-01-02T08:00:00.000Z',
};

export const dimensionObjectExample: z.input<typeof DimensionObject> = {
  company_id: COMPANY_ID,
  dimension: 1,
  code: 'Nord',
  name: 'Kontor Nord',
  active: true,
  created_at: '2026-01-02T08:05:00.000Z',
  updated_at: '2026-01-02T08:05:00.000Z',
};
