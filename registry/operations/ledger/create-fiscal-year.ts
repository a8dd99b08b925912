import { FiscalYear, FiscalYearCreateBody } from '../../../domain/ledger/schemas.ts';
import { createFiscalYear as create } from '../../../domain/ledger/fiscal-years.ts';
import { COMPANY_ID, fiscalYearExample } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

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
