import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { Operation } from '../../../domain/operations/schemas.ts';
import { enqueueOperation } from '../../../domain/operations/store.ts';
import { closeFiscalYearNow, planClose } from '../../../domain/operations/jobs/close-fiscal-year.ts';
import { closeFiscalYearKind } from '../../../domain/operations/kinds/close-fiscal-year.ts';
import { queuedOperationExample } from '../../../domain/operations/examples.ts';
import { COMPANY_ID, FISCAL_YEAR_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';

export const closeFiscalYear = defineOperation({
  id: 'closeFiscalYear',
  group: 'ledger',
  method: 'POST',
  path: '/companies/{companyId}/fiscal-years/{fiscalYearId}/close',
  summary: 'Close a fiscal year',
  description:
    "Starts an operation (202; poll getOperation) that books the year's result from 8999 to 2099, marks the year closed and opens the next. Every period must be locked. A dry run shows what it would book.",
  auth: { scope: closeFiscalYearKind.scope, also: ['operations:write'] },
  risk: 'L3',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'operation',
  errors: ['FISCAL_YEAR_CLOSED', 'PERIODS_NOT_LOCKED', 'ENTRY_UNBALANCED'],
  input: {
    params: z.object({ companyId: CompanyId, fiscalYearId: z.uuid().describe('Fiscal year id (uuid), from listFiscalYears.') }),
  },
  output: Operation,
  status: 202,
  examples: {
    params: { companyId: COMPANY_ID, fiscalYearId: FISCAL_YEAR_ID },
    response: queuedOperationExample,
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => {
    // Refuse at once what would only fail later: the same checks the job makes.
    await planClose(ctx, params.companyId, params.fiscalYearId);
    const operation = await enqueueOperation(ctx, params.companyId, closeFiscalYearKind.kind, { fiscal_year_id: params.fiscalYearId });
    if (!ctx.dryRun) return { data: operation };
    // A dry run does the closing too (inside the transaction the pipeline rolls back) and shows it.
    return { data: { ...operation, result: await closeFiscalYearNow(ctx, params.companyId, params.fiscalYearId) } };
  },
});
