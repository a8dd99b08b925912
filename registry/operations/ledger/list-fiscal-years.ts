import { z } from 'zod';
import { FiscalYear, FiscalYearListQuery } from '../../../domain/ledger/schemas.ts';
import { listFiscalYears as list } from '../../../domain/ledger/fiscal-years.ts';
import { COMPANY_ID, fiscalYearExample } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const listFiscalYears = defineOperation({
  id: 'listFiscalYears',
  errors: [],
  group: 'ledger',
  method: 'GET',
  path: '/companies/{companyId}/fiscal-years',
  summary: 'List fiscal years',
  description: "The company's fiscal years in date order, optionally of one status (open, closed) or those overlapping from-to. Cursor-paginated.",
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: FiscalYearListQuery },
  output: z.object({ fiscal_years: z.array(FiscalYear) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { status: 'open' }, response: { fiscal_years: [fiscalYearExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => {
    const { fiscal_years, pagination } = await list(ctx, params.companyId, query);
    return { data: { fiscal_years }, pagination };
  },
});
