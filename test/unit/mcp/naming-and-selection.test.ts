import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assignNames, toolName } from '../../../mcp/naming.ts';
import { pathArgumentName } from '../../../mcp/arguments.ts';
import { resolveSelection } from '../../../mcp/toolsets.ts';
import { toJsonSchema } from '../../../mcp/schema.ts';
import { compileTools, IDEMPOTENCY_ARG, ToolIndex } from '../../../mcp/tools.ts';
import { toRequest } from '../../../mcp/tool-request.ts';
import { parseInput } from '../../../pipeline/parse-input.ts';
import { hostPolicy } from '../../../mcp/dns-rebinding.ts';
import { defineOperation, GROUPS, type Group } from '../../../registry/define-operation.ts';
import { DomainError } from '../../../domain/kernel/errors.ts';
import { registry } from '../../../registry/index.ts';

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
    // Derived names collide too: `thingId` in the path and `thing_id` in the body.
    const derived = defineOperation({
      ...base,
      id: 'tagThing',
      method: 'PATCH',
      path: '/things/{thingId}',
      input: { params: z.object({ thingId: z.string() }), body: z.object({ thing_id: z.string() }) },
    });
    expect(() => compileTools([derived], 'namespaced')).toThrow(/"thing_id" is declared by both params and body/);
  });

  it('names every argument in snake_case, path parameters included, and splits them back into params, query and body', () => {
    const write = defineOperation({
      ...base,
      id: 'moveThing',
      method: 'POST',
      path: '/companies/{companyId}/things/{id}/move',
      idempotencyKey: 'optional',
      dryRun: true,
      input: {
        params: z.object({ companyId: z.string(), id: z.string() }),
        query: z.object({ notify: z.string().optional() }),
        body: z.object({ to: z.string() }),
      },
    });
    const [entry] = compileTools([write], 'flat');
    expect(entry!.name).toBe('move_thing');
    expect(Object.keys(entry!.tool.inputSchema.properties ?? {})).toEqual(['company_id', 'thing_id', 'notify', 'to', 'idempotency_key', 'dry_run']);
    expect(entry!.tool.inputSchema.required).toEqual(['company_id', 'thing_id', 'to']);
    expect(toRequest(entry!, { company_id: 'c', thing_id: 7, notify: true, to: 'B', idempotency_key: 'k', dry_run: true })).toEqual({
      // dry_run travels as sent: the pipeline parses it (strictly) for REST and MCP alike.
      raw: { params: { companyId: 'c', id: '7' }, query: { notify: 'true', dry_run: true }, body: { to: 'B' } },
      idempotencyKey: 'k',
    });
    expect(entry!.argumentFor('params', 'id')).toBe('thing_id');
    expect(entry!.argumentFor('query', 'notify')).toBe('notify');
    const tools = new ToolIndex([write]);
    const everything = { variant: 'flat' as const, toolsets: ['companies' as const], readOnly: false };
    expect(tools.list(everything, ['companies:read']).tools).toEqual([]);
    expect(tools.list(everything, ['companies:write']).tools.map((t) => t.name)).toEqual(['move_thing']);
    expect(tools.list({ ...everything, readOnly: true }, ['companies:write']).tools).toEqual([]);
    // Cached: the same selection and scope set answer with the same object.
    expect(tools.list(everything, ['companies:write', 'payroll:read'])).toBe(tools.list(everything, ['companies:write']));
  });

  it("compiles every registry tool's argument validator (a pattern Ajv cannot compile fails here, not on a call)", () => {
    const outcomes = compileTools(registry.operations, 'namespaced').map((entry) => {
      const required = (entry.tool.inputSchema.required ?? []).filter((name) => name !== IDEMPOTENCY_ARG);
      let outcome: string;
      try {
        entry.validate({});
        outcome = 'accepted';
      } catch (error) {
        outcome = error instanceof DomainError ? error.code : `threw ${String(error)}`;
      }
      // No arguments: accepted when nothing (or only the idempotency key, the pipeline's to judge) is required.
      const expected =
        required.length > 0 ? 'VALIDATION_ERROR' : entry.tool.inputSchema.required?.includes(IDEMPOTENCY_ARG) ? 'IDEMPOTENCY_KEY_REQUIRED' : 'accepted';
      return [entry.name, outcome, expected] as const;
    });
    expect(outcomes.filter(([, outcome, expected]) => outcome !== expected)).toEqual([]);
    // Tools that take nothing required and tools that do both occur: each path ran.
    expect(new Set(outcomes.map(([, outcome]) => outcome))).toEqual(new Set(['accepted', 'VALIDATION_ERROR']));
  });

  it('derives path argument names mechanically', () => {
    expect(pathArgumentName('/companies/{companyId}/webhooks/{id}', 'companyId')).toBe('company_id');
    expect(pathArgumentName('/companies/{companyId}/webhooks/{id}', 'id')).toBe('webhook_id');
    expect(pathArgumentName('/webhook-deliveries/{id}/retry', 'id')).toBe('webhook_delivery_id');
    expect(pathArgumentName('/companies/{companyId}/accounts/{accountNumber}', 'accountNumber')).toBe('account_number');
    expect(pathArgumentName('/capabilities/{capabilityId}', 'capabilityId')).toBe('capability_id');
    expect(pathArgumentName('/companies/{companyId}/entries/{id}', 'id')).toBe('entry_id');
  });

  it('refuses wrong argument names and types before anything runs, naming the expected arguments', () => {
    const op = defineOperation({
      ...base,
      id: 'renameThing',
      method: 'PATCH',
      path: '/companies/{companyId}/things/{id}',
      input: { params: z.object({ companyId: z.uuid(), id: z.uuid() }), body: z.object({ name: z.string(), size: z.enum(['s', 'm']).optional() }) },
    });
    const [entry] = compileTools([op], 'namespaced');
    const thrown = (args: Record<string, unknown>): DomainError => {
      try {
        entry!.validate(args);
      } catch (error) {
        return error as DomainError;
      }
      throw new Error('no error');
    };
    const wrong = thrown({ companyId: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', id: 'x', name: 'n' });
    expect(wrong.code).toBe('VALIDATION_ERROR');
    expect(wrong.details).toEqual(
      expect.arrayContaining([
        { path: 'companyId', message: 'Unknown argument; did you mean company_id?' },
        { path: 'id', message: 'Unknown argument.' },
        { path: 'company_id', message: 'Required.' },
        { path: 'thing_id', message: 'Required.' },
      ]),
    );
    expect(wrong.validAlternatives).toEqual(['company_id', 'thing_id', 'name', 'size']);
    expect(wrong.message).toMatch(/This tool takes: company_id \(required\), thing_id \(required\), name \(required\), size\./);
    const badEnum = thrown({ company_id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', thing_id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', name: 'n', size: 'xl' });
    expect(badEnum.details).toEqual([{ path: 'size', message: expect.stringMatching(/one of "s"\|"m"/) }]);
    expect(badEnum.validAlternatives).toEqual(['s', 'm']);
    // One validator of values: the tool's answer is the pipeline's (REST's) for the same request, in the tool's names.
    const overRest = (() => {
      try {
        parseInput(op, {
          params: { companyId: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10' },
          query: {},
          body: { name: 'n', size: 'xl' },
        });
      } catch (error) {
        return error as DomainError;
      }
      throw new Error('no error');
    })();
    expect(overRest.details).toEqual([{ path: 'body.size', message: badEnum.details?.[0]?.message }]);
    expect(thrown({ company_id: 7, thing_id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', name: 'n' }).details).toEqual([
      { path: 'company_id', message: expect.stringMatching(/UUID/i) },
    ]);
    expect(() =>
      entry!.validate({ company_id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', thing_id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10', name: 'n' }),
    ).not.toThrow();
  });

  it('compacts JSON Schema without losing field names or data', () => {
    const schema = z.object({
      id: z.uuid(),
      pattern: z.string().regex(/^a+$/),
      format: z.string().default('x'),
      at: z.iso.datetime(),
      count: z.number().int(),
      maybe: z.uuid().nullable(),
      state: z.enum(['a', 'b']).nullable(),
    });
    // Loosely typed: the assertions below check the exact shape.
    const input = toJsonSchema(schema, 'input') as { $schema?: string; properties: Record<string, Record<string, unknown>> };
    expect(input.$schema).toBeUndefined();
    expect(Object.keys(input.properties)).toEqual(['id', 'pattern', 'format', 'at', 'count', 'maybe', 'state']);
    expect(input.properties.id).toEqual({ type: 'string', format: 'uuid' });
    expect(input.properties.pattern!.pattern).toBe('^a+$'); // no format beside it: the regex is the contract
    expect(input.properties.at!.pattern).toBeUndefined();
    expect(input.properties.count).toEqual({ type: 'integer' }); // zod's ±2^53-1 bounds say nothing
    expect(input.properties.maybe).toEqual({ type: ['string', 'null'], format: 'uuid' });
    expect(input.properties.state).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
    // Output schemas keep names, types, formats and short enums; bounds, patterns and required go.
    const output = toJsonSchema(schema, 'output') as { required?: string[]; properties: Record<string, Record<string, unknown>> };
    expect(output.required).toBeUndefined();
    expect(output.properties.pattern).toEqual({ type: 'string' });
    expect(output.properties.format).toEqual({ type: 'string' });
    expect(output.properties.state).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
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
