import { z } from 'zod';
import { CompanyId } from '../../../domain/companies/schemas.ts';
import { Agi, AgiGenerateBody, Month } from '../../../domain/payroll/schemas.ts';
import { generateAgi as generate, getAgi as get, listAgis as list, submitAgi as submit } from '../../../domain/payroll/agi.ts';
import { agiExample } from '../../../domain/payroll/examples.ts';
import { COMPANY_ID } from '../../../domain/ledger/examples.ts';
import { defineOperation, READ_ONLY } from '../../define-operation.ts';

const CompanyParams = z.object({ companyId: CompanyId });
const AgiParams = z.object({ companyId: CompanyId, agiId: z.uuid().describe('Declaration id (uuid), from listAgis.') });

export const listAgis = defineOperation({
  id: 'listAgis',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/agis',
  summary: 'List employer declarations',
  description: 'Employer declarations (AGI), newest month first, every version; optionally of one month.',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: CompanyParams, query: z.strictObject({ period: Month.optional() }) },
  output: z.object({ agis: z.array(Agi) }),
  status: 200,
  examples: { params: { companyId: COMPANY_ID }, query: { period: '2026-11' }, response: { agis: [agiExample] } },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, query }) => ({ data: { agis: await list(ctx, params.companyId, query.period) } }),
});

export const getAgi = defineOperation({
  id: 'getAgi',
  errors: [],
  group: 'tax',
  method: 'GET',
  path: '/companies/{companyId}/agis/{agiId}',
  summary: 'Get an employer declaration',
  description: 'One AGI: the employer part and an individual part per employee (identity numbers masked).',
  auth: { scope: 'payroll:read' },
  ...READ_ONLY,
  input: { params: AgiParams },
  output: Agi,
  status: 200,
  examples: { params: { companyId: COMPANY_ID, agiId: agiExample.id }, response: agiExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params }) => ({ data: await get(ctx, params.companyId, params.agiId) }),
});

export const generateAgi = defineOperation({
  id: 'generateAgi',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/agis',
  summary: 'Generate an employer declaration',
  description:
    "Builds the month's AGI from its booked salary runs. Replaces an unsubmitted one; after submission it creates a linked correction version. Emits agi.generated.",
  auth: { scope: 'payroll:read', also: ['compliance:write'] },
  risk: 'L2',
  idempotent: true,
  reversible: true,
  dryRun: true,
  idempotencyKey: 'optional',
  sideEffects: ['create', 'emits_event'],
  auditTarget: 'agi',
  errors: ['NO_BOOKED_SALARY_RUNS'],
  input: { params: CompanyParams, body: AgiGenerateBody },
  output: Agi,
  status: 201,
  examples: { params: { companyId: COMPANY_ID }, body: { period: '2026-11' }, response: agiExample },
  surfaces: ['api', 'mcp', 'cli'],
  handler: async (ctx, { params, body }) => ({ data: await generate(ctx, params.companyId, body.period) }),
});

export const submitAgi = defineOperation({
  id: 'submitAgi',
  group: 'tax',
  method: 'POST',
  path: '/companies/{companyId}/agis/{agiId}/submit',
  summary: 'Submit an employer declaration',
  description: 'Records the filing and freezes the declaration (no agency is called). Emits agi.submitted.',
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
