/**
 * npm run mcp:budget — token counts (o200k_base) of the serialised tools/list result in both naming
 * variants with every operation exposed, and the ten largest tools. Exits 1 over budget.
 */
import { registry } from '../registry/index.ts';
import { budgetProblems, measureRegistry, targetGap, TOOL_LIST_TOKEN_LIMIT, TOOL_LIST_TOKEN_TARGET, TOOL_TOKEN_LIMIT } from '../mcp/budget.ts';

const budgets = measureRegistry(registry.operations);
const out = (line: string): void => void process.stdout.write(`${line}\n`);

out(`MCP tools/list budget (o200k_base): limit ${TOOL_LIST_TOKEN_LIMIT}, target ${TOOL_LIST_TOKEN_TARGET}, per tool ${TOOL_TOKEN_LIMIT}`);
for (const b of budgets) out(`  ${b.variant.padEnd(10)} ${String(b.total).padStart(6)} tokens, ${b.tools} tools`);
const larger = budgets.reduce((a, b) => (b.total > a.total ? b : a));
out(`Ten largest tools (${larger.variant}):`);
for (const tool of larger.perTool.slice(0, 10)) out(`  ${String(tool.tokens).padStart(5)}  ${tool.name}`);

const gap = targetGap(budgets);
if (gap) process.stderr.write(`not yet within target: ${gap}\n`);
const problems = budgetProblems(budgets);
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`over budget: ${problem}\n`);
  process.exit(1);
}
