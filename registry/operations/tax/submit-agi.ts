import { Agi } from '../../../domain/payroll/schemas.ts';
import { submitAgi as submit } from '../../../domain/payroll/agi.ts';
import { agiExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation } from '../../define-operation.ts';
import { AgiParams } from './params.ts';

export const submitAgi = defineOperation({
  id: 'submitAgi',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/agis/{agiId}/submit',
  summary: 'Submit an employer declaration',
  description: 'Records the filing and freezes the declaration (no agency is called).',
  emits: ['agi.submitted'],
  auth: { scope: 'payroll:read', also: ['compliance:write'] },
  risk: 'L3',
  idempotent: false,
  reversible: false,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['update', 'emits_event'],
  auditTarget: 'agi',
  errors: ['FILING_SUBMITTED'],
  input: { params: AgiParams },
  output: Agi,
  status: 200,
  examples: {
    params: { companyId: COMPANY_ID, agiId: agiExample.id },
    response: { ...agiExample, status: 'submitted', submitted_at: '2026-12-08T08:30:12.000Z' },
  },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await submit(ctx, params.companyId, params.agiId) }),
});
