import { Agi, AgiGenerateBody } from '../../../domain/payroll/schemas.ts';
import { generateAgi as generate } from '../../../domain/payroll/agi.ts';
import { AGI_CONTACT, agiExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { CompanyParams } from '../params.ts';

export const generateAgi = defineOperation({
  id: 'generateAgi',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/agis',
  summary: 'Generate an employer declaration',
  description: "The month's AGI from its booked salary runs. Replaces an unsubmitted one, or corrects a submitted one.",
  emits: ['agi.generated'],
  auth: { scope: 'payroll:read', also: ['compliance:write'] },
  risk: 'L2',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'agi',
  errors: ['NO_BOOKED_SALARY_RUNS', 'FILING_INCOMPLETE'],
  input: { params: CompanyParams, body: AgiGenerateBody },
  output: Agi,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { period: '2026-11', contact: AGI_CONTACT }, response: agiExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await generate(ctx, params.companyId, body) }),
});
