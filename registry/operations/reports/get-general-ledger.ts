import { GeneralLedger, GeneralLedgerQuery } from '../../../domain/reports/schemas.ts';
import { generalLedgerPdf, getGeneralLedger as ledger } from '../../../domain/reports/reports.ts';
import { generalLedgerExample } from '../../../domain/reports/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { PDF } from './statement-traits.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const getGeneralLedger = defineOperation({
  id: 'getGeneralLedger',
  group: 'reports',
  method: 'GET',
  path: '/companies/{companyId}/reports/general-ledger',
  summary: 'Get the general ledger (huvudbok)',
  description:
    "Every committed line of the period by account, then date and voucher, with the account's running balance. Filter by account or " +
    'account_from/account_to. Cursor-paginated. As a PDF (Accept: application/pdf): the whole ledger of the filter.',
  auth: { scope: 'companies:read' },
  ...READ_ONLY,
  errors: ['NO_FISCAL_YEAR', 'DIMENSION_UNKNOWN', 'OBJECT_UNKNOWN'],
  input: { params: CompanyParams, query: GeneralLedgerQuery },
  output: GeneralLedger,
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { from: '2026-11-01', to: '2026-11-30', account: '1930' }, response: generalLedgerExample },
  surfaces: ['api', 'mcp', 'cli'],
  produces: [{ ...PDF, render: (ctx, { params, query }, language) => generalLedgerPdf(ctx, params.companyId, query, language) }],
  handler: async (ctx, { params, query }) => {
    const { pagination, ...data } = await ledger(ctx, params.companyId, query);
    return { data, pagination };
  },
});
