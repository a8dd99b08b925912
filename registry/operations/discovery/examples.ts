import type { z } from 'zod';
import type { CapabilityRecord } from '../../../domain/capabilities/record.ts';

/** The record of listCompanies, as a worked example (checked against the schema at load). */
export const listCompaniesRecord: z.input<typeof CapabilityRecord> = {
  capabilityId: 'accounting.list_companies',
  source: 'local_mirror',
  ownerProduct: 'accounting',
  riskLevel: 'L1',
  riskClassification: 'contract_declared',
  domain: 'general',
  surfaces: ['api', 'cli', 'mcp'],
  operationId: 'listCompanies',
  tenantScoped: false,
  idempotent: true,
  sideEffects: ['none'],
  rollbackSupport: 'unknown',
  requiresPolicy: false,
  requiresAudit: false,
  docsPath: '/capabilities/accounting.list_companies',
  apiEndpointRefs: ['GET /api/v1/companies'],
  cliCommandRefs: ['accounting companies list'],
  mcpToolRefs: ['companies.list', 'list_companies'],
};
