import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assignNames, toolName } from '../../../mcp/naming.ts';
import { resolveSelection } from '../../../mcp/toolsets.ts';
import { toJsonSchema } from '../../../mcp/schema.ts';
import { compileTools, ToolIndex } from '../../../mcp/tools.ts';
import { toRequest } from '../../../mcp/call-tool.ts';
import { hostPolicy } from '../../../mcp/dns-rebinding.ts';
import { defineOperation, GROUPS, type Group } from '../../../registry/define-operation.ts';
import { DomainError } from '../../../domain/kernel/errors.ts';

const op = (id: string, group: Group) => ({ id, group });

describe('MCP tool names', () => {
  it('derives both variants mechanically from the operation id and group', () => {
    const cases: [string, Group, string, string][] = [
      ['listCompanies', 'companies', 'companies.list', 'list_companies'],
      ['updateCompany', 'companies', 'companies.update', 'update_company'],
      ['createWebhook', 'webhooks', 'webhooks.create', 'create_webhook'],
      ['listWebhookDeliveries', 'webhooks', 'webhooks.list_deliveries', 'list_webhook_deliveries'],
      ['retryWebhookDelivery', 'webhooks', 'webhooks.retry_delivery', 'retry_webhook_delivery'],
      ['getHealth', 'platform', 'platform.get_health', 'get_health'],
      ['getCapability', 'discovery', 'discovery.get_capability', 'get_capability'],
    ];
    for (const [id, group, namespaced, flat] of cases) {
      expect(toolName(op(id, group), 'namespaced'), id).toBe(namespaced);
      expect(toolName(op(id, group), 'flat'), id).toBe(flat);
    }
  });

  it('fails loudly on a duplicate name in either variant', () => {
    // Distinct ids, one namespaced name: the group noun is dropped from both.
    expect(() => assignNames([op('listWebhooks', 'webhooks'), op('listWebhook', 'webhooks')], 'namespaced')).toThrow(/already used by listWebhooks/);
    expect(() => assignNames([op('listWebhooks', 'webhooks'), op('listWebhook', 'webhooks')], 'flat')).not.toThrow();
    expect(() => assignNames([op('getHealth', 'platform'), op('getHealth', 'companies')], 'flat')).toThrow(/get_health/);
  });
});

describe('toolset selection', () => {
  const config = { MCP_TOOLSETS: undefined, MCP_READ_ONLY: false };

  it('defaults to every toolset, read-write, namespaced', () => {
    expect(resolveSelection(config, {})).toEqual({ variant: 'namespaced', toolsets: [...GROUPS].sort(), readOnly: false });
    expect(resolveSelection(config, { toolsets: 'webhooks, companies', readOnly: 'true', variant: 'flat' })).toEqual({
      variant: 'flat',
      toolsets: ['companies', 'webhooks'],
      readOnly: true,
    });
    expect(resolveSelection(config, { toolsets: 'all' }).toolsets).toHaveLength(GROUPS.length);
  });

  it('never widens the configured toolsets or turns configured read-only off', () => {
    const narrow = { MCP_TOOLSETS: 'companies', MCP_READ_ONLY: true };
    expect(resolveSelection(narrow, { readOnly: 'false' })).toMatchObject({ toolsets: ['companies'], readOnly: true });
    expect(() => resolveSelection(narrow, { toolsets: 'webhooks' })).toThrow(DomainError);
    expect(() => resolveSelection(config, { variant: 'kebab' })).toThrow(/variant/);
    expect(() => resolveSelection({ MCP_TOOLSETS: 'companies,payrolls', MCP_READ_ONLY: false }, {})).toThrow(/payrolls/);
  });
});

describe('tool compilation', () => {
  const base = {
    group: 'companies' as const,
    summary: 's',
    description: 'd',
    auth: { scope: 'companies:write' as const },
    risk: 'L1' as const,
    idempotent: false,
    reversible: true,
    dryRun: false,
    idempotencyKey: 'none' as const,
    sideEffects: ['update'] as const,
    output: z.object({ ok: z.boolean() }),
    status: 200 as const,
    examples: { response: { ok: true } },
    surfaces: ['api', 'mcp'] as const,
    handler: async () => ({ data: { ok: true } }),
  };

  it('refuses two parts declaring one argument name', () => {
    const clash = defineOperation({
      ...base,
      id: 'renameThing',
      method: 'PATCH',
      path: '/things/{name}',
      input: { params: z.object({ name: z.string() }), body: z.object({ name: z.string() }) },
    });
    expect(() => compileTools([clash], 'namespaced')).toThrow(/"name" is declared by both params and body/);
  });

  it('splits merged arguments back into params, query and body', () => {
    const write = defineOperation({
      ...base,
      id: 'moveThing',
      method: 'POST',
      path: '/things/{thingId}/move',
      idempotencyKey: 'optional',
      dryRun: true,
      input: { params: z.object({ thingId: z.string() }), query: z.object({ notify: z.string().optional() }), body: z.object({ to: z.string() }) },
    });
    const [entry] = compileTools([write], 'flat');
    expect(entry!.name).toBe('move_thing');
    expect(toRequest(entry!, { thingId: 7, notify: true, to: 'B', extra: 1, idempotency_key: 'k', dry_run: true })).toEqual({
      // dry_run travels as sent: the pipeline parses it (strictly) for REST and MCP alike.
      raw: { params: { thingId: '7' }, query: { notify: 'true', dry_run: true }, body: { to: 'B', extra: 1 } },
      idempotencyKey: 'k',
    });
    const tools = new ToolIndex([write]);
    const everything = { variant: 'flat' as const, toolsets: ['companies' as const], readOnly: false };
    expect(tools.list(everything, ['companies:read']).tools).toEqual([]);
    expect(tools.list(everything, ['companies:write']).tools.map((t) => t.name)).toEqual(['move_thing']);
    expect(tools.list({ ...everything, readOnly: true }, ['companies:write']).tools).toEqual([]);
    // Cached: the same selection and scope set answer with the same object.
    expect(tools.list(everything, ['companies:write', 'payroll:read'])).toBe(tools.list(everything, ['companies:write']));
  });

  it('compacts JSON Schema without losing field names or data', () => {
    const schema = z.object({
      id: z.uuid(),
      pattern: z.string().regex(/^a+$/),
      format: z.string().default('x'),
      at: z.iso.datetime(),
    });
    // Loosely typed: the assertions below check the exact shape.
    const json = toJsonSchema(schema, 'output') as { $schema?: string; properties: Record<string, { pattern?: string }> };
    expect(json.$schema).toBeUndefined();
    expect(Object.keys(json.properties)).toEqual(['id', 'pattern', 'format', 'at']);
    expect(json.properties.id).toEqual({ type: 'string', format: 'uuid' });
    expect(json.properties.pattern!.pattern).toBe('^a+$'); // no format beside it: the regex is the contract
    expect(json.properties.at!.pattern).toBeUndefined();
  });
});

describe('DNS rebinding policy', () => {
  const policy = hostPolicy({ PUBLIC_BASE_URL: 'https://api.example.com', MCP_ALLOWED_HOSTS: undefined, MCP_ALLOWED_ORIGINS: undefined });

  it('allows loopback and the public host, and nothing that merely contains them', () => {
    for (const host of ['localhost', 'LOCALHOST:3000', '127.0.0.1:1', '[::1]:8080', 'api.example.com', 'api.example.com:443']) {
      expect(policy.hostAllowed(host), host).toBe(true);
    }
    for (const host of [undefined, '', 'evil.com', 'localhost.evil.com', 'api.example.com.evil.com', '127.0.0.1.nip.io', 'localhost:abc', 'user@localhost']) {
      expect(policy.hostAllowed(host), String(host)).toBe(false);
    }
    expect(policy.originAllowed(undefined)).toBe(true);
    for (const origin of ['https://api.example.com', 'http://localhost:5173', 'http://[::1]:3000']) expect(policy.originAllowed(origin), origin).toBe(true);
    for (const origin of ['null', 'http://api.example.com', 'https://evil.com', 'file:///x', 'https://localhost.evil.com']) {
      expect(policy.originAllowed(origin), origin).toBe(false);
    }
  });
});
