import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { connectInProcess } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { requiredScopes } from '../../../registry/define-operation.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { toolName } from '../../../mcp/naming.ts';
import type { Services } from '../../../domain/context.ts';

const MCP_OPS = registry.operations.filter((op) => op.surfaces.includes('mcp'));

describe.each(DB_TARGETS)('MCP tools/list: generated tools, selection and scope filtering (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  const clients: Client[] = [];
  const connect = async (options: Parameters<typeof connectInProcess>[1], on = app) => {
    const client = await connectInProcess(on, options);
    clients.push(client);
    return client;
  };
  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('lists one tool per MCP operation, named mechanically, with title, description and both schemas', async () => {
    const { tools } = await (await connect({ key: tenant.key })).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(MCP_OPS.map((op) => toolName(op, 'namespaced')));
    expect(tools.map((tool) => tool.name)).toContain('companies.list');
    for (const tool of tools) {
      const op = MCP_OPS.find((o) => toolName(o, 'namespaced') === tool.name)!;
      expect(tool.title).toBe(op.summary);
      // The registry's description, minus boilerplate, within 300 characters; its first sentence always leads.
      expect(tool.description!.length).toBeLessThanOrEqual(300);
      expect(tool.description!.startsWith(op.description.slice(0, 15))).toBe(true);
      // Operation ids in prose are tool names on this surface (quoted examples in parentheses stay),
      // in whatever of the description the 300-character cut kept.
      const prose = tool.description!.replace(/\([^)]*\)/g, '');
      for (const other of MCP_OPS) expect(prose, tool.name).not.toMatch(new RegExp(`(^|[^\\w.])${other.id}\\b`));
      expect(tool.inputSchema.type).toBe('object');
      expect(Boolean(tool.outputSchema)).toBe(op.output !== null);
      expect(tool.annotations?.openWorldHint).toBe(false);
      // Compact schemas: no dialect marker, no regex beside a format.
      expect(JSON.stringify(tool)).not.toContain('$schema');
      expect(JSON.stringify(tool)).not.toMatch(/"format":"(uuid|date-time)","pattern"/);
    }
    const list = tools.find((tool) => tool.name === 'companies.list')!;
    expect(list.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(['cursor', 'limit']);
    const update = tools.find((tool) => tool.name === 'companies.update')!;
    // Hints at their MCP default (readOnlyHint false) are left out; destructiveHint (default true) is said.
    expect(update.annotations).toEqual({ destructiveHint: false, idempotentHint: true, openWorldHint: false });
    // params + body merged in snake_case; the optional idempotency key and dry-run flag added.
    expect(Object.keys(update.inputSchema.properties ?? {})).toEqual(['company_id', 'name', 'entity_type', 'idempotency_key', 'dry_run']);
    expect(update.inputSchema.required).toEqual(['company_id']);
    expect(update.inputSchema).toMatchObject({ additionalProperties: false });
    // One naming style: every argument of every tool is snake_case.
    for (const tool of tools) {
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) expect(name, `${tool.name}.${name}`).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('marks a required idempotency key required, deletes destructive, and bare-204 tools without output schema', async () => {
    const { tools } = await (await connect({ key: tenant.key })).listTools();
    const create = tools.find((tool) => tool.name === 'webhooks.create')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['company_id', 'event_type', 'webhook_url', 'name', 'idempotency_key']));
    expect(create.inputSchema.properties).toHaveProperty('dry_run');
    const remove = tools.find((tool) => tool.name === 'webhooks.delete')!;
    expect(remove.annotations?.destructiveHint).toBe(true);
    expect(remove.outputSchema).toBeUndefined();
    const deliveries = tools.find((tool) => tool.name === 'webhooks.list_deliveries')!;
    expect(Object.keys(deliveries.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['company_id', 'webhook_id', 'cursor', 'limit']));
    expect(deliveries.outputSchema?.properties).toHaveProperty('next_cursor');
  });

  it('offers the flat variant with the same tools under snake_case names', async () => {
    const flat = await names(await connect({ key: tenant.key, query: '?variant=flat' }));
    expect(flat).toEqual(MCP_OPS.map((op) => toolName(op, 'flat')));
    expect(flat).toContain('list_companies');
    expect(flat.every((name) => /^[a-z0-9_]+$/.test(name))).toBe(true);
    expect(flat).toEqual(expect.arrayContaining(['create_webhook', 'list_webhook_deliveries']));
  });

  it('selects toolsets, and read-only mode lists and allows only tools without side effects', async () => {
    const companiesOnly = await names(await connect({ key: tenant.key, query: '?toolsets=companies' }));
    expect(companiesOnly).toEqual(MCP_OPS.filter((op) => op.group === 'companies').map((op) => toolName(op, 'namespaced')));
    const readOnly = await connect({ key: tenant.key, query: '?read_only=true' });
    const readOnlyNames = await names(readOnly);
    const expected = MCP_OPS.filter((op) => op.sideEffects.every((e) => e === 'none')).map((op) => toolName(op, 'namespaced'));
    expect(readOnlyNames).toEqual(expected);
    expect(readOnlyNames).not.toContain('companies.update');
    // Not listed means not callable: a protocol error, not a tool error.
    await expect(readOnly.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'x' } })).rejects.toMatchObject({
      code: -32602,
    });
    const both = await names(await connect({ key: tenant.key, query: '?toolsets=companies,webhooks&read_only=true' }));
    expect(both).toContain('companies.list');
    expect(both).not.toContain('companies.update');
    // One flag grammar (true/false), as for dry_run: `1` is refused, never guessed at.
    await expect(connect({ key: tenant.key, query: '?read_only=1' })).rejects.toThrow();
  });

  it('lets MCP_READ_ONLY and MCP_TOOLSETS win: a request may narrow them, never widen them', async () => {
    const restricted = createApp(
      { ...t.services, config: { ...t.services.config, MCP_READ_ONLY: true, MCP_TOOLSETS: 'companies,platform' } } satisfies Services,
      registry,
      [mountMcp],
    );
    const listed = await names(await connect({ key: tenant.key, query: '?read_only=false' }, restricted));
    const readsOf = (groups: string[]) =>
      MCP_OPS.filter((op) => groups.includes(op.group) && op.sideEffects.every((e) => e === 'none')).map((op) => toolName(op, 'namespaced'));
    expect(listed).toEqual(readsOf(['platform', 'companies']));
    await expect(connect({ key: tenant.key, query: '?toolsets=webhooks' }, restricted)).rejects.toThrow();
    expect(await names(await connect({ key: tenant.key, query: '?toolsets=companies' }, restricted))).toEqual(readsOf(['companies']));
  });

  it('leaves out tools whose scope the key lacks, while every call is still authorised by the pipeline', async () => {
    const db = t.services.database.prisma;
    const reader = await makeKey(db, tenant.userId, { scopes: ['companies:read'] });
    const client = await connect({ key: reader.key });
    const listed = await names(client);
    expect(listed).toContain('companies.list');
    expect(listed).toContain('platform.get_health'); // public: no scope needed
    expect(listed).not.toContain('companies.update');
    expect(listed.some((name) => name.startsWith('webhooks.'))).toBe(false);
    const payrollOnly = await makeKey(db, tenant.userId, { scopes: ['payroll:read'] });
    // A key sees the public tools and those whose every required scope it holds: payroll reads,
    // not payroll writes (they need companies:write as well).
    const expected = MCP_OPS.filter((op) => requiredScopes(op).every((scope) => scope === 'payroll:read')).map((op) => toolName(op, 'namespaced'));
    const payrollTools = await names(await connect({ key: payrollOnly.key }));
    expect(payrollTools).toEqual(expected);
    expect(payrollTools).toContain('payroll.list_employees');
    expect(payrollTools).not.toContain('payroll.create_employee');
    // Hidden is not forbidden-by-omission: the call reaches invoke(), which answers with the scope.
    const hidden = await client.callTool({ name: 'companies.update', arguments: { company_id: tenant.companyId, name: 'x' } });
    expect(hidden.isError).toBe(true);
  });
});
