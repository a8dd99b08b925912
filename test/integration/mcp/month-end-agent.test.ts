import { PDF } from '../../helpers/documents.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { allText, connectInProcess, dataOf, firstJson } from '../../helpers/mcp-client.ts';
import { buildApp } from '../../../cli/build-app.ts';

/**
 * Issue 17's scripted agent, in discovery mode only: every step is found with search_operations,
 * read with describe_operation and run with invoke_operation — the three tools are all it has.
 * The month-end: record three entries, commit them, upload a receipt and attach it, lock the
 * period, generate the month's VAT return — and the ledger and the return show the result.
 */
describe.each(DB_TARGETS)('a scripted agent closes March through discovery mode alone (%s)', (target) => {
  let t: TestServices;
  let tenant: Tenant;
  let agent: Client;

  beforeAll(async () => {
    t = await createTestServices(target);
    tenant = await makeTenant(t.services.database.prisma);
    agent = await connectInProcess(buildApp(t.services), { key: tenant.key, query: '?mode=discover' });
  });
  afterAll(async () => {
    await agent?.close();
    await t?.close();
  });

  /** search_operations → the best match, which must be the operation the step needs. */
  const find = async (words: string, expected: string): Promise<string> => {
    const found = await agent.callTool({ name: 'search_operations', arguments: { query: words, limit: 3 } });
    const name = dataOf(found).operations[0]?.name;
    expect(name, `search for "${words}" found ${JSON.stringify(dataOf(found).operations)}`).toBe(expected);
    return name;
  };
  /** describe_operation → the arguments it requires, which the agent checks it is about to send. */
  const required = async (name: string): Promise<string[]> =>
    dataOf(await agent.callTool({ name: 'describe_operation', arguments: { name } })).input_schema.required ?? [];
  const invoke = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const missing = (await required(name)).filter((arg) => !(arg in args));
    expect(missing, `${name} needs ${missing.join(', ')}`).toEqual([]);
    const result = await agent.callTool({ name: 'invoke_operation', arguments: { name, arguments: args } });
    expect(result.isError, `${name}: ${allText(result)}`).toBeFalsy();
    return result.structuredContent;
  };

  it('records three entries, commits them, attaches a receipt, locks the period, generates the VAT return, and the books show it', async () => {
    expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(['search_operations', 'describe_operation', 'invoke_operation']);

    const companies = await invoke(await find('list companies', 'companies.list'), {});
    const company_id = companies.companies[0].id;
    expect(company_id).toBe(tenant.companyId);
    await invoke(await find('create fiscal year', 'ledger.create_fiscal_year'), { company_id, start_date: '2026-01-01' });

    const draft = await find('draft journal entry', 'ledger.create_journal_entry');
    const commit = await find('commit journal entry', 'ledger.commit_journal_entry');
    const entries = [
      {
        date: '2026-03-05',
        description: 'Office supplies',
        lines: [
          { account: '6110', debit: 40_000 },
          { account: '2641', debit: 10_000 },
          { account: '1930', credit: 50_000 },
        ],
      },
      {
        date: '2026-03-12',
        description: 'Consulting invoice paid',
        lines: [
          { account: '1930', debit: 125_000 },
          { account: '3001', credit: 100_000 },
          { account: '2611', credit: 25_000 },
        ],
      },
      {
        date: '2026-03-28',
        description: 'Bank fee',
        lines: [
          { account: '6570', debit: 5_000 },
          { account: '1930', credit: 5_000 },
        ],
      },
    ];
    // A slip the agent recovers from: the hint names this surface's tools, not operation ids.
    const slip = await agent.callTool({
      name: 'invoke_operation',
      arguments: {
        name: draft,
        arguments: {
          company_id,
          ...entries[1]!,
          lines: [
            { account: '3041', credit: 1 },
            { account: '1930', debit: 1 },
          ],
        },
      },
    });
    expect(firstJson(slip).error).toMatchObject({ code: 'ACCOUNT_UNKNOWN', details: [{ path: 'lines.0.account' }] });
    expect(firstJson(slip).error.recovery_hint).toContain('ledger.list_accounts');
    expect(firstJson(slip).error.recovery_hint).not.toContain('listAccounts');
    const committed = [];
    for (const entry of entries) {
      const drafted = await invoke(draft, { company_id, ...entry, idempotency_key: randomUUID() });
      expect(drafted.status).toBe('draft');
      committed.push(await invoke(commit, { company_id, entry_id: drafted.id, idempotency_key: randomUUID() }));
    }
    expect(committed.map((e) => e.status)).toEqual(['committed', 'committed', 'committed']);
    expect(new Set(committed.map((e) => e.voucher)).size).toBe(3);

    // The receipt of the office supplies, as an agent holding the file would send it.
    const receipt = await invoke(await find('upload receipt document', 'documents.upload'), {
      company_id,
      content_base64: PDF.toString('base64'),
      filename: 'kvitto-kontorsmaterial.pdf',
      description: 'Office supplies',
      idempotency_key: randomUUID(),
    });
    expect(receipt).toMatchObject({ content_type: 'application/pdf', filename: 'kvitto-kontorsmaterial.pdf' });
    const attached = await invoke(await find('attach document to journal entry', 'documents.attach'), {
      company_id,
      document_id: receipt.id,
      journal_entry_id: committed[0].id,
    });
    expect(attached.journal_entry_ids).toEqual([committed[0].id]);

    const periods = await invoke(await find('list accounting periods', 'ledger.list_periods'), { company_id });
    const march = periods.periods.find((p: { start_date: string }) => p.start_date === '2026-03-01');
    const locked = await invoke(await find('lock period', 'ledger.lock_period'), { company_id, period_id: march.id, idempotency_key: randomUUID() });
    expect(locked).toMatchObject({ id: march.id, status: 'locked' });

    // The ledger shows the month: three committed entries, and March takes no more commits.
    const ledger = await invoke(await find('list journal entries', 'ledger.list_journal_entries'), {
      company_id,
      date_from: '2026-03-01',
      date_to: '2026-03-31',
      status: 'committed',
    });
    expect(ledger.journal_entries.map((e: { id: string }) => e.id).sort()).toEqual(committed.map((e) => e.id).sort());
    expect(ledger.next_cursor).toBeNull();
    const late = await invoke(draft, { company_id, ...entries[2]!, description: 'Late fee', idempotency_key: randomUUID() });
    const refused = await agent.callTool({ name: 'invoke_operation', arguments: { name: commit, arguments: { company_id, entry_id: late.id } } });
    expect(refused.isError).toBe(true);
    expect(firstJson(refused).error).toMatchObject({ code: 'PERIOD_LOCKED', recovery_hint: expect.any(String), valid_alternatives: expect.any(Array) });

    // March's VAT return from the locked books: 25 % output VAT on the invoice, input VAT on the supplies.
    const vat = await invoke(await find('generate VAT return', 'tax.generate_vat_return'), {
      company_id,
      period_start: '2026-03-01',
      period_end: '2026-03-31',
      idempotency_key: randomUUID(),
    });
    expect(vat).toMatchObject({ status: 'generated', output_vat: 25_000, input_vat: 10_000, net_vat: 15_000 });
  });
});
