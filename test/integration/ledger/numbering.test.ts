import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { OFFICE_SUPPLIES, books } from '../../helpers/ledger.ts';
import { connectInProcess } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { commitJournalEntry } from '../../../domain/ledger/commit.ts';
import { withTransaction, type OperationContext } from '../../../domain/context.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');

describe.runIf(POSTGRES_AVAILABLE)('gapless voucher numbers under concurrency (postgres)', () => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestServices('postgres', { now: () => NOW });
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
    await books(app, tenant.key, tenant.companyId).createYear('2026-01-01');
  });
  afterAll(async () => t?.close());

  it('50 concurrent commits get 1..50, no gap, no duplicate; a commit that fails after taking its number leaves no gap', async () => {
    const b = books(app, tenant.key, tenant.companyId);
    const drafts: string[] = [];
    for (let i = 0; i < 51; i++) drafts.push((await b.draft('2026-02-10', OFFICE_SUPPLIES, { series: 'C' })).body.data.id);

    // A commit that takes the next number and then fails inside its transaction.
    const ctx: OperationContext = {
      services: t.services,
      actor: {
        apiKeyId: tenant.apiKeyId,
        apiKeyName: 'test',
        userId: tenant.userId,
        companyId: null,
        scopes: [...SCOPES],
        mode: 'test',
        rateLimitPerMinute: 600,
      },
      requestId: 'test',
      db: t.services.database.prisma,
      inTransaction: false,
      dryRun: false,
    };
    let taken: number | null = null;
    const failed = await withTransaction(ctx, async (tx) => {
      taken = (await commitJournalEntry(tx, tenant.companyId, drafts[50] as string)).number;
      throw new Error('fails after numbering');
    }).catch((error: Error) => error.message);
    expect(failed).toBe('fails after numbering');
    expect(taken).toBe(1);

    const results = await Promise.all(drafts.slice(0, 50).map((id) => b.commit(id)));
    for (const result of results) expect(result.status, result.text).toBe(200);
    const numbers = results.map((r) => r.body.data.number as number).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const last = await b.commit(drafts[50] as string);
    expect(last.body.data.number).toBe(51);
  });
});

engineSuite("ledger tools over MCP give REST's data", { now: () => NOW, app: (services) => createApp(services, registry, [mountMcp]), tenant: true }, (t) => {
  let mcp: Client;
  /** The tool's own name for an argument (the naming style is the MCP surface's choice). */
  let arg: (tool: string, ...candidates: string[]) => string;

  beforeAll(async () => {
    await books(t.app, t.tenant.key, t.tenant.companyId).createYear('2026-01-01');
    mcp = await connectInProcess(t.app, { key: t.tenant.key });
    const { tools } = await mcp.listTools();
    arg = (tool, ...candidates) => {
      const properties = Object.keys(tools.find((x) => x.name === tool)?.inputSchema.properties ?? {});
      const found = candidates.find((c) => properties.includes(c));
      if (!found) throw new Error(`${tool} has none of ${candidates.join(', ')}: ${properties.join(', ')}`);
      return found;
    };
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('create, commit and get a journal entry as tools; get equals REST', async () => {
    const company = arg('ledger.create_journal_entry', 'company_id', 'companyId');
    const created = await mcp.callTool({
      name: 'ledger.create_journal_entry',
      arguments: { [company]: t.tenant.companyId, date: '2026-03-01', description: 'Via MCP', lines: OFFICE_SUPPLIES },
    });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    const entry = arg('ledger.commit_journal_entry', 'entry_id', 'entryId');
    const committed = await mcp.callTool({ name: 'ledger.commit_journal_entry', arguments: { [company]: t.tenant.companyId, [entry]: id } });
    expect(committed.isError, JSON.stringify(committed.content)).toBeFalsy();
    expect(committed.structuredContent).toMatchObject({ voucher: 'A1', status: 'committed' });
    const viaTool = await mcp.callTool({ name: 'ledger.get_journal_entry', arguments: { [company]: t.tenant.companyId, [entry]: id } });
    const viaRest = await books(t.app, t.tenant.key, t.tenant.companyId).send('GET', `/journal-entries/${id}`);
    expect(viaTool.structuredContent).toEqual(viaRest.body.data);

    const unbalanced = await mcp.callTool({
      name: 'ledger.create_journal_entry',
      arguments: {
        [company]: t.tenant.companyId,
        date: '2026-03-01',
        description: 'Off',
        lines: [
          { account: '6110', debit: 2 },
          { account: '1930', credit: 1 },
        ],
      },
    });
    const draftId = (unbalanced.structuredContent as { id: string }).id;
    const refused = await mcp.callTool({ name: 'ledger.commit_journal_entry', arguments: { [company]: t.tenant.companyId, [entry]: draftId } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('ENTRY_UNBALANCED');
  });
});
