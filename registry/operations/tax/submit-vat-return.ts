import { VatReturn } from '../../../domain/tax/schemas.ts';
import { submitVatReturn as submit } from '../../../domain/tax/vat.ts';
import { submittedVatReturnExample, vatReturnExample } from '../../../domain/tax/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { VatParams } from './params.ts';

export const submitVatReturn = defineOperation({
  id: 'submitVatReturn',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/vat-returns/{vatReturnId}/submit',
  summary: 'Submit a VAT return',
  description: 'Records the filing, freezes the return and books its settlement entry (dry_run shows it). Nothing is sent to Skatteverket.',
  emits: ['vat_return.submitted', 'journal_entry.committed'],
  auth: { scope: 'compliance:write' },
  risk: 'L3',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'vat_return',
  errors: ['FILING_SUBMITTED', 'PERIODS_NOT_LOCKED', 'CONFLICT', 'FISCAL_YEAR_CLOSED', 'ACCOUNT_UNKNOWN', 'ACCOUNT_INACTIVE'],
  input: { params: VatParams },
  output: VatReturn,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, vatReturnId: vatReturnExample.id },
    response: submittedVatReturnExample,
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await submit(ctx, params.companyId, params.vatReturnId) }),
});
