import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { allText, connectInProcess, firstJson, postMcp } from '../../helpers/mcp-client.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { DISCOVERY_TOOLS, MCP_QUERY_PARAMETERS, mcpOptionLines } from '../../../registry/mcp-options.ts';

const BASE = 'https://api.example.test';
const AMOUNT_WORDS = '12500 = 125,00 kr';

/**
 * Issue 29, agents' first day: what an agent reads before connecting names discovery mode and the
 * options; instructions speak in tool names; errors say which form a value needs.
 */
describe.each(DB_TARGETS)('MCP first day: options published, errors that say what to send (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  const clients: Client[] = [];
  const connect = async (query = '') => {
    const client = await connectInProcess(app, { key: tenant.key, query });
    clients.push(client);
    return client;
  };
  const entry = (lines: unknown[]) => ({ company_id: tenant.companyId, date: '2026-01-15', description: 'Kontorsmaterial', lines, dry_run: true });

  beforeAll(async () => {
    t = await createTestServices(target);
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it('publishes discovery mode and every option in llms.txt, the skills index and the instructions', async () => {
    const llms = (await call(app, 'GET', '/llms.txt')).text;
    for (const line of mcpOptionLines()) expect(llms).toContain(line);
    expect(llms).toContain(`${BASE}/mcp?mode=discover`);
    // The summary describes the books, not only companies and webhooks.
    expect(llms.split('\n').find((l) => l.startsWith('> '))).toMatch(/journal entries.*VAT returns/s);
    const openapi = (await call(app, 'GET', '/api/v1/openapi.json')).body;
    // OpenAPI's summary names the parts; each tag, which the description points to, says what its part holds.
    expect(openapi.info.summary).toMatch(/ledger.*reports.*payroll.*tax returns/s);
    expect(openapi.info.description).toMatch(/ledger.*reports.*payroll.*tax returns/s);
    expect(openapi.tags.find((tag: { name: string }) => tag.name === 'ledger').description).toMatch(/chart of accounts.*journal entries/s);

    const index = (await call(app, 'GET', '/.well-known/skills/index.json')).body;
    const mcp = index.skills.find((s: { name: string }) => s.name === 'accounting-mcp');
    expect(mcp.description).toContain('?mode=discover');
    const skill = (await call(app, 'GET', '/.well-known/skills/accounting-mcp/SKILL.md')).text;
    for (const line of mcpOptionLines()) expect(skill).toContain(line);

    const direct = await connect();
    const instructions = direct.getInstructions() ?? '';
    expect(instructions).toContain('?mode=discover');
    for (const tool of Object.values(DISCOVERY_TOOLS)) expect(instructions).toContain(tool);
    // Tool names, never REST operation ids.
    expect(instructions).toContain('ledger.list_periods');
    expect(instructions).not.toMatch(/\blist[A-Z][A-Za-z]+\b/);
    const flat = await connect('?variant=flat');
    expect(flat.getInstructions()).toContain('from list_periods');
  });

  it('refuses an undeclared /mcp query parameter, naming the accepted ones', async () => {
    const answer = await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { key: tenant.key, query: '?mode=discover&tool_set=ledger' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error.valid_alternatives).toEqual([...MCP_QUERY_PARAMETERS]);
    expect(answer.body.error.message).toContain('tool_set');
  });

  it('points an unknown operation name in discovery mode to search_operations', async () => {
    const discover = await connect('?mode=discover');
    for (const result of [
      await discover.callTool({ name: DISCOVERY_TOOLS.invoke, arguments: { name: 'ledger.list_journal', arguments: {} } }),
      await discover.callTool({ name: DISCOVERY_TOOLS.describe, arguments: { name: 'ledger.list_journal' } }),
    ]) {
      expect(result.isError).toBe(true);
      const { error } = firstJson(result);
      expect(error.code).toBe('NOT_FOUND');
      expect(error.recovery_hint).toMatch(/^Call search_operations/);
      expect(error.valid_alternatives).toContain('ledger.list_journal_entries');
    }
  });

  it('says amounts are whole öre and which JSON form a value needs, without a doubled full stop or code prefix (MCP)', async () => {
    const direct = await connect();
    const result = await direct.callTool({
      name: 'ledger.create_journal_entry',
      arguments: entry([
        { account: 1930, debit: '125.00' },
        { account: '2440', credit: 125.5 },
      ]),
    });
    expect(result.isError).toBe(true);
    const { error } = firstJson(result);
    expect(error.code).toBe('VALIDATION_ERROR');
    const byPath = Object.fromEntries(error.details.map((d: { path: string; message: string }) => [d.path, d.message]));
    expect(byPath['lines.0.account']).toMatch(/^Must be a JSON string, quoted \(e\.g\. "1930"\), not a number\./);
    expect(byPath['lines.0.debit']).toMatch(/^Must be a whole JSON number, unquoted .*, not a string\. Whole öre/);
    expect(byPath['lines.0.debit']).toContain(AMOUNT_WORDS);
    expect(byPath['lines.1.credit']).toContain('not a number with a fraction');
    expect(error.message).not.toMatch(/\.\.|;\s*\./);
    expect(error.message).not.toMatch(/^VALIDATION_ERROR/);
    expect(allText(result)).not.toContain('Must be integer');
  });

  it('says the same over REST: amounts are whole öre, the form wanted and sent', async () => {
    const answer = await call(app, 'POST', `/api/v1/companies/${tenant.companyId}/journal-entries?dry_run=true`, {
      key: tenant.key,
      body: {
        date: '2026-01-15',
        description: 'Kontorsmaterial',
        lines: [
          { account: 1930, debit: '125.00' },
          { account: '2440', credit: 125.5 },
        ],
      },
    });
    expect(answer.status).toBe(400);
    const byPath = Object.fromEntries(answer.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message]));
    expect(byPath['body.lines.0.account']).toBe('Must be a JSON string, quoted (e.g. "1930"), not a number.');
    expect(byPath['body.lines.0.debit']).toContain(AMOUNT_WORDS);
    expect(byPath['body.lines.0.debit']).toContain('not a string');
    expect(byPath['body.lines.1.credit']).toContain('not a number with a fraction');
    expect(answer.body.error.message).not.toMatch(/\.\./);
  });
});
