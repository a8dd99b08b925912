import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { VatReturn, VatReturnGenerateBody } from '../../../domain/tax/schemas.ts';
import { generateVatReturn as generate, getVatReturn as get, listVatReturns as list, submitVatReturn as submit } from '../../../domain/tax/vat.ts';
import { vatReturnExample } from '../../../domain/tax/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

const CompanyParams = z.object({ companyId: CompanyId });
const VatParams = z.object({ companyId: CompanyId, vatReturnId: z.uuid().describe('VAT return id (uuid), from listVatReturns.') });

export const listVatReturns = defineOperation({
  id: 'listVatReturns',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/vat-returns',
  summary: 'List VAT returns',
  description: 'VAT returns, newest period first.',
  auth: { scope: 'compliance:read' },
  ...READ_ONLY,
  input: { params: CompanyParams },
  output: z.object({ vat_returns: z.array(VatReturn) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, response: { vat_returns: [vatReturnExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: { vat_returns: await list(ctx, params.companyId) } }),
});

export const getVatReturn = defineOperation({
  id: 'getVatReturn',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/vat-returns/{vatReturnId}',
  summary: 'Get a VAT return',
  description: 'One VAT return with each box and the accounts and sums it came from.',
  auth: { scope: 'compliance:read' },
  ...READ_ONLY,
  input: { params: VatParams },
  output: VatReturn,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, vatReturnId: vatReturnExample.id }, response: vatReturnExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.vatReturnId) }),
});

export const generateVatReturn = defineOperation({
  id: 'generateVatReturn',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/vat-returns',
  summary: 'Generate a VAT return',
  description:
    'Computes boxes 05, 10-12, 48 and 49 from committed entries of whole periods, all of which must be locked. Replaces an unsubmitted return of the same periods. Emits vat_return.generated.',
  auth: { scope: 'compliance:write' },
  risk: 'L2',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'vat_return',
  errors: ['VAT_PERIOD_INVALID', 'PERIODS_NOT_LOCKED', 'FILING_SUBMITTED'],
  input: { params: CompanyParams, body: VatReturnGenerateBody },
  output: VatReturn,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { period_start: '2026-01-01', period_end: '2026-03-31' }, response: vatReturnExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await generate(ctx, params.companyId, body) }),
});

export const submitVatReturn = defineOperation({
  id: 'submitVatReturn',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/vat-returns/{vatReturnId}/submit',
  summary: 'Submit a VAT return',
  description: 'Records the filing and freezes the return (no agency is called). Emits vat_return.submitted.',
  auth: { scope: 'compliance:write' },
  risk: 'L3',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'vat_return',
  errors: ['FILING_SUBMITTED'],
  input: { params: VatParams },
  output: VatReturn,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, vatReturnId: vatReturnExample.id },
    response: { ...vatReturnExample, status: 'submitted', submitted_at: '2026-04-12T13:05:47.000Z' },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await submit(ctx, params.companyId, params.vatReturnId) }),
});
