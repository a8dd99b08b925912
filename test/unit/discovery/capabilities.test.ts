import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.ts';
import type { Operation } from '../../../registry/define-operation.ts';
import { capabilityIdOf, capabilityRecord, localCapabilities } from '../../../registry/capabilities.ts';
import { CapabilityRecord } from '../../../domain/capabilities/record.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { VARIANTS } from '../../../mcp/naming.ts';
import { ToolIndex } from '../../../mcp/tools.ts';
import { BUILT_SURFACES } from '../../../registry/define-operation.ts';
import { buildRegistry } from '../../../registry/build-registry.ts';

const operations = registry.operations;
const base = registry.byId('updateCompany')!;
const variant = (overrides: Partial<Operation>) => capabilityRecord({ ...base, ...overrides });

describe('capability records', () => {
  it('derive both id forms mechanically', () => {
    expect(capabilityIdOf('createWebhook')).toBe('accounting.create_webhook');
    expect(capabilityIdOf('listWebhookDeliveries')).toBe('accounting.list_webhook_deliveries');
    expect(capabilityIdOf('getHealth')).toBe('accounting.get_health');
  });

  it("map an operation's traits onto the record fields", () => {
    expect(capabilityRecord(base)).toEqual({
      capabilityId: 'accounting.update_company',
      source: 'local_mirror',
      ownerProduct: 'accounting',
      riskLevel: 'L1',
      riskClassification: 'contract_declared',
      domain: 'general',
      surfaces: ['api', 'cli', 'mcp'],
      operationId: 'updateCompany',
      tenantScoped: true,
      idempotent: true,
      sideEffects: ['update'],
      rollbackSupport: 'unknown',
      requiresPolicy: false,
      requiresAudit: true,
      docsPath: '/capabilities/accounting.update_company',
      apiEndpointRefs: ['PATCH /api/v1/companies/{companyId}'],
      cliCommandRefs: ['accounting companies update'],
      mcpToolRefs: ['companies.update', 'update_company'],
    });
  });

  it('map risk L0/L1 to L1 and L2/L3 to L3, with policy from L2 up', () => {
    expect(['L0', 'L1', 'L2', 'L3'].map((risk) => variant({ risk: risk as Operation['risk'] })).map((r) => [r.riskLevel, r.requiresPolicy])).toEqual([
      ['L1', false],
      ['L1', false],
      ['L3', true],
      ['L3', true],
    ]);
  });

  it('map delete to update, irreversible to no rollback, reads to no audit; list only declared surfaces and their tools', () => {
    const deleting = variant({ method: 'DELETE', sideEffects: ['delete', 'update', 'emits_event'], reversible: false });
    expect(deleting.sideEffects).toEqual(['update', 'emits_event']);
    expect(deleting.rollbackSupport).toBe('none');
    const restOnly = variant({ surfaces: ['api'] });
    expect(restOnly.surfaces).toEqual(['api']);
    expect(restOnly.mcpToolRefs).toEqual([]);
    // No cli surface, no command to list.
    expect(restOnly.cliCommandRefs).toEqual([]);
    const reading = variant({ method: 'GET', sideEffects: ['none'], path: '/companies' });
    expect(reading.requiresAudit).toBe(false);
    expect(reading.tenantScoped).toBe(false);
  });

  it('put platform, webhooks and discovery under developer_platform, companies under general', () => {
    const domains = Object.fromEntries(operations.map((op) => [op.group, capabilityRecord(op).domain]));
    expect(domains).toMatchObject({ platform: 'developer_platform', companies: 'general', discovery: 'developer_platform', webhooks: 'developer_platform' });
  });

  it('exist for every operation, valid, and resolvable by capability id, operation id and both tool names', () => {
    const local = localCapabilities(operations);
    expect(local.list.map((record) => record.operationId)).toEqual(operations.map((op) => op.id));
    for (const op of operations) {
      const record = local.find(op.id);
      expect(CapabilityRecord.parse(record)).toEqual(record);
      expect(local.find(capabilityIdOf(op.id))).toBe(record);
      // The MCP tools really are called this: the records and the tool list agree.
      const tools = op.surfaces.includes('mcp')
        ? VARIANTS.map((v) => new ToolIndex([op]).list({ variant: v, toolsets: [op.group], readOnly: false }, [...SCOPES]).tools[0]?.name)
        : [];
      expect(record?.mcpToolRefs).toEqual(tools);
      for (const name of record?.mcpToolRefs ?? []) expect(local.find(name)).toBe(record);
    }
    expect(local.list.some((record) => record.mcpToolRefs.length === 2)).toBe(true);
    expect(local.find('accounting.nothing')).toBeUndefined();
  });

  it('the documented examples are real derived records', () => {
    const record = capabilityRecord(registry.byId('listCompanies')!);
    expect(registry.byId('getCapability')!.examples.response).toEqual(record);
    expect(registry.byId('listCapabilities')!.examples.response).toEqual({ capabilities: [record] });
  });

  it('advertise only surfaces that exist: the registry refuses any other at load', () => {
    for (const record of localCapabilities(operations).list) {
      for (const surface of record.surfaces) expect(BUILT_SURFACES).toContain(surface);
    }
    // A surface outside the built ones (the spec's 'ui' has no implementation here) is refused.
    expect(() => buildRegistry([{ ...base, surfaces: ['api', 'ui' as never] }])).toThrow(/updateCompany: surface\(s\) ui do not exist/);
    expect(() => buildRegistry([{ ...base, surfaces: ['mcp'] }])).toThrow(/surfaces must include api/);
  });
});
