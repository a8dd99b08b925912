import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '../../../registry/index.ts';
import { defineOperation } from '../../../registry/define-operation.ts';
import {
  budgetProblems,
  budgetReport,
  countTokens,
  DISCOVER_TOKEN_LIMIT,
  measureModes,
  measureRegistry,
  TOOL_LIST_TOKEN_LIMIT,
  TOOL_LIST_TOKEN_TARGET,
  TOOL_TOKEN_LIMIT,
} from '../../../mcp/budget.ts';
import { ToolIndex } from '../../../mcp/tools.ts';

describe('MCP token budget (o200k_base, serialised tools/list)', () => {
  const budgets = measureRegistry(registry.operations);
  const modes = measureModes(registry.operations);

  it('keeps both naming variants, discovery mode and the dynamic start within budget with every operation exposed', () => {
    // Printed on purpose: the counts are the point of this test.
    console.log(budgetReport(budgets, modes).join('\n'));
    expect(budgets.map((b) => b.variant)).toEqual(['namespaced', 'flat']);
    const larger = Math.max(...budgets.map((b) => b.total));
    expect(larger).toBeLessThanOrEqual(TOOL_LIST_TOKEN_TARGET);
    for (const b of budgets) expect(b.perTool.every((tool) => tool.tokens <= TOOL_TOKEN_LIMIT)).toBe(true);
    expect(modes.discover.tools).toBe(3);
    expect(modes.discover.total).toBeLessThanOrEqual(DISCOVER_TOKEN_LIMIT);
    expect(modes.dynamic.total).toBeLessThan(larger);
    expect(budgetProblems([...budgets, modes.dynamic], modes.discover)).toEqual([]);
    expect(budgets.every((b) => b.tools === registry.operations.filter((op) => op.surfaces.includes('mcp')).length)).toBe(true);
  });

  it('measures with the real tokenizer and reports every rule broken', () => {
    expect(countTokens('hello world')).toBe(2);
    const bloated = budgets.map((b) => ({
      ...b,
      total: TOOL_LIST_TOKEN_LIMIT + 1,
      perTool: [{ name: 'fat.tool', tokens: TOOL_TOKEN_LIMIT + 1 }],
      longDescriptions: ['wordy.tool'],
    }));
    const problems = budgetProblems(bloated, { ...modes.discover, total: DISCOVER_TOKEN_LIMIT + 1 });
    expect(problems.some((p) => p.includes(`over the spec's ${TOOL_LIST_TOKEN_LIMIT}`))).toBe(true);
    expect(problems.filter((p) => p.startsWith('fat.tool'))).toHaveLength(2);
    expect(problems.filter((p) => p.startsWith('wordy.tool'))).toHaveLength(2);
    expect(problems.some((p) => p.startsWith('discovery mode'))).toBe(true);
    const overTarget = budgets.map((b) => ({ ...b, total: TOOL_LIST_TOKEN_TARGET + 1 }));
    expect(budgetProblems(overTarget)).toEqual([`tools/list is ${TOOL_LIST_TOKEN_TARGET + 1} tokens, over our target of ${TOOL_LIST_TOKEN_TARGET}`]);
  });

  it('shrinks generically: boilerplate sentences, shared argument descriptions and long prose are cut by the builder', () => {
    const base = {
      group: 'companies' as const,
      method: 'GET' as const,
      summary: 's',
      auth: { scope: 'companies:read' as const },
      risk: 'L0' as const,
      idempotent: true,
      reversible: true,
      dryRun: false,
      idempotencyKey: 'none' as const,
      sideEffects: ['none'] as const,
      output: z.object({ ok: z.boolean() }),
      status: 200 as const,
      examples: { response: { ok: true } },
      surfaces: ['api', 'mcp'] as const,
      handler: async () => ({ data: { ok: true } }),
    };
    const shared = z.object({ companyId: z.uuid().describe('Company id from the companies list.') });
    const ops = ['A', 'B', 'C'].map((letter) =>
      defineOperation({
        ...base,
        id: `get${letter}`,
        path: `/companies/{companyId}/${letter.toLowerCase()}`,
        description: `Gets ${letter}. Needs no special care. ${'Long detail. '.repeat(letter === 'C' ? 40 : 0)}`.trim(),
        input: { params: shared },
      }),
    );
    const index = new ToolIndex(ops);
    const tools = index.list({ variant: 'namespaced', toolsets: ['companies'], readOnly: false }, ['companies:read']).tools;
    expect(tools.map((tool) => tool.description)).toEqual(['Gets A.', 'Gets B.', expect.stringMatching(/^Gets C\. Long detail\./)]);
    expect(tools[2]!.description!.length).toBeLessThanOrEqual(300);
    expect(tools[0]!.inputSchema.properties).toEqual({ company_id: { type: 'string', format: 'uuid' } });
    expect(index.glossary.get('company_id')).toBe('Company id from the companies list.');
  });
});
