import type { z } from 'zod';
import type { Operation } from './schemas.ts';
import { COMPANY_ID } from '../ledger/examples.ts';
import { closeFiscalYearKind } from './kinds/close-fiscal-year.ts';

export const OPERATION_ID = '0e4d7b2a-6c8f-4139-9a5e-2b7f1d4c8e06';

export const operationExample: z.input<typeof Operation> = {
  id: OPERATION_ID,
  company_id: COMPANY_ID,
  kind: closeFiscalYearKind.kind,
  status: 'succeeded',
  progress: 100,
  progress_message: 'Closed',
  result: {
    closing_entry_id: '3e6a9c2d-8b4f-4d17-9e3a-5c0b8f2d7a61',
    voucher: 'Y1',
    result: 18_450_000,
    next_fiscal_year_id: 'c4a1e8f3-2b7d-4960-8a3c-6d9f1b5e2c75',
  },
  error: null,
  cancel_requested: false,
  attempts: 1,
  created_at: '2026-11-14T10:00:00.000Z',
  started_at: '2026-11-14T10:00:01.000Z',
  finished_at: '2026-11-14T10:00:03.000Z',
};

export const queuedOperationExample: z.input<typeof Operation> = {
  ...operationExample,
  status: 'queued',
  progress: 0,
  progress_message: null,
  result: null,
  attempts: 0,
  started_at: null,
  finished_at: null,
};
