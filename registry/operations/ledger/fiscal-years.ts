import { z } from 'zod';
import { FiscalYear, FiscalYearCreateBody, Period, PeriodListQuery } from '../../../domain/ledger/schemas.ts';
import { createFiscalYear as create, listFiscalYears as list } from '../../../domain/ledger/fiscal-years.ts';
import { listPeriods as listAll, lockPeriod as lock, unlockPeriod as unlock } from '../../../domain/ledger/periods.ts';
import { COMPANY_ID, fiscalYearExample, periodExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams, PeriodParams } from './params.ts';

export const listFiscalYears = defineOperation({
  id: 'listFiscalYears',
  errors: [],
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/fiscal-years',
  summary: 'List fiscal years',
  description: "The company's fiscal years in date order, open or closed.",
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: { params: CompanyParams },
  output: z.object({ fiscal_years: z.array(FiscalYear) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, response: { fiscal_years: [fiscalYearExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: { fiscal_years: await list(ctx, params.companyId) } }),
});

export const createFiscalYear = defineOperation({
  id: 'createFiscalYear',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/fiscal-years',
  summary: 'Create a fiscal year',
  description:
    'Opens a fiscal year with one period per month: 12 months by default, 1-18 allowed, starting the day after the previous year ends (no overlap, no gap).',
  auth: { scope: 'companies:write' },
  risk: 'L1',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  auditTarget: 'fiscal_year',
  errors: ['FISCAL_YEAR_OVERLAP', 'FISCAL_YEAR_GAP'],
  input: { params: CompanyParams, body: FiscalYearCreateBody },
  output: FiscalYear,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { start_date: '2026-01-01' }, response: fiscalYearExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await create(ctx, params.companyId, body) }),
});

export const listPeriods = defineOperation({
  id: 'listPeriods',
  errors: [],
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/periods',
  summary: 'List accounting periods',
  description: 'Monthly periods in date order, optionally of one fiscal year or one status (open, locked).',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: PeriodListQuery },
  output: z.object({ periods: z.array(Period) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { fiscal_year_id: periodExample.fiscal_year_id }, response: { periods: [periodExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => ({ data: { periods: await listAll(ctx, params.companyId, query) } }),
});

const periodWrite = {
  group: 'ledger',
  method: 'POST',
  auth: { scope: 'compliance:write' },
  risk: 'L2',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'period',
  input: { params: PeriodParams },
  output: Period,
  status: 200,
  surfaces: ['api', 'mcp', 'cli'],
} as const;

export const lockPeriod = defineOperation({
  ...periodWrite,
  id: 'lockPeriod',
  errors: [],
  path: '/companies/{companyId}/periods/{periodId}/lock',
  summary: 'Lock a period',
  description: 'Locks a month against commits (e.g. after VAT is reported). Locking a locked period changes nothing. Emits period.locked.',
  examples: { params: { companyId: COMPANY_ID, periodId: periodExample.id }, response: periodExample },
  handler: async (ctx, { params }) => ({ data: await lock(ctx, params.companyId, params.periodId) }),
});

export const unlockPeriod = defineOperation({
  ...periodWrite,
  id: 'unlockPeriod',
  path: '/companies/{companyId}/periods/{periodId}/unlock',
  summary: 'Unlock a period',
  description: 'Reopens a locked month for commits; refused once its fiscal year is closed. Emits period.unlocked.',
  errors: ['FISCAL_YEAR_CLOSED'],
  examples: {
    params: { companyId: COMPANY_ID, periodId: periodExample.id },
    response: { ...periodExample, status: 'open', locked_at: null },
  },
  handler: async (ctx, { params }) => ({ data: await unlock(ctx, params.companyId, params.periodId) }),
});
