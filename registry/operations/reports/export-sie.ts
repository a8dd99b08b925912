import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { exportSie as sie } from '../../../domain/sie/export.ts';
import { SIE_CONTENT_TYPE } from '../../../domain/sie/format.ts';
import { COMPANY_ID, FISCAL_YEAR_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

export const exportSie = defineOperation({
  id: 'exportSie',
  errors: [],
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/fiscal-years/{fiscalYearId}/sie',
  summary: 'Export a fiscal year as SIE 4',
  description:
    'The books of one fiscal year as an SIE 4 file (type 4E, CP437), the format every Swedish accounting program imports: company, chart of accounts, ' +
    'opening and closing balances (#IB, #UB), results (#RES), this year and the one before, and every committed entry as #VER with its #TRANS rows. Streamed.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  input: {
    params: z.object({ companyId: CompanyId, fiscalYearId: z.uuid().describe('Fiscal year id (uuid), from listFiscalYears.') }),
  },
  output: null,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, fiscalYearId: FISCAL_YEAR_ID } },
  surfaces: ['api', 'cli'],
  produces: [{ mediaType: SIE_CONTENT_TYPE, render: (ctx, { params }) => sie(ctx, params.companyId, params.fiscalYearId) }],
});
