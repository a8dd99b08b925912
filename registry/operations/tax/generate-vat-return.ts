import { VatReturn, VatReturnGenerateBody } from '../../../domain/tax/schemas.ts';
import { generateVatReturn as generate } from '../../../domain/tax/vat.ts';
import { vatReturnExample } from '../../../domain/tax/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const generateVatReturn = defineOperation({
  id: 'generateVatReturn',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/vat-returns',
  summary: 'Generate a VAT return',
  description: 'Every box from committed entries of whole, locked periods. Replaces an unsubmitted return, or corrects a submitted one.',
  emits: ['vat_return.generated'],
  auth: { scope: 'compliance:write' },
  risk: 'L2',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'vat_return',
  errors: ['VAT_PERIOD_INVALID', 'PERIODS_NOT_LOCKED'],
  input: { params: CompanyParams, body: VatReturnGenerateBody },
  output: VatReturn,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { period_start: '2026-01-01', period_end: '2026-03-31' }, response: vatReturnExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await generate(ctx, params.companyId, body) }),
});
