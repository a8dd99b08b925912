import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.ts';
import {
  budgetProblems,
  countTokens,
  measureRegistry,
  TOOL_LIST_TOKEN_LIMIT,
  TOOL_LIST_TOKEN_TARGET,
  TOOL_TOKEN_LIMIT,
} from '../../../mcp/budget.ts';

describe('MCP token budget (o200k_base, serialised tools/list)', () => {
  const budgets = measureRegistry(registry.operations);

  it('keeps both naming variants within budget with every operation exposed', () => {
    for (const b of budgets) {
      // Printed on purpose: the counts are the point of this test.
      console.log(`MCP tools/list tokens, ${b.variant}: ${b.total} (${b.tools} tools; largest ${b.perTool[0]?.name} ${b.perTool[0]?.tokens})`);
    }
    expect(budgets.map((b) => b.variant)).toEqual(['namespaced', 'flat']);
    const larger = Math.max(...budgets.map((b) => b.total));
    expect(larger).toBeLessThanOrEqual(TOOL_LIST_TOKEN_LIMIT);
    // Our 24,000 target (issue 17) is reported, not enforced, until the schemas are tightened.
    console.log(`MCP tools/list target ${TOOL_LIST_TOKEN_TARGET}: ${larger <= TOOL_LIST_TOKEN_TARGET ? 'met' : `not yet met (${larger})`}`);
    for (const b of budgets) expect(b.perTool.every((tool) => tool.tokens <= TOOL_TOKEN_LIMIT)).toBe(true);
    expect(budgetProblems(budgets)).toEqual([]);
    expect(budgets.every((b) => b.tools === registry.operations.filter((op) => op.surfaces.includes('mcp')).length)).toBe(true);
  });

  it('measures with the real tokenizer and reports every rule broken', () => {
    expect(countTokens('hello world')).toBe(2);
    const bloated = budgets.map((b) => ({ ...b, total: TOOL_LIST_TOKEN_LIMIT + 1, perTool: [{ name: 'fat.tool', tokens: TOOL_TOKEN_LIMIT + 1 }] }));
    const problems = budgetProblems(bloated);
    expect(problems.some((p) => p.includes(`over the spec's ${TOOL_LIST_TOKEN_LIMIT}`))).toBe(true);
    expect(problems.filter((p) => p.startsWith('fat.tool'))).toHaveLength(2);
  });
});
