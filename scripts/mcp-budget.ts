/**
 * npm run mcp:budget — token counts (o200k_base) of the serialised tools/list result in both naming
 * variants with every operation exposed, in discovery mode and at the start of a dynamic session,
 * and the ten largest tools. Exits 1 over budget.
 */
import { registry } from '../registry/index.ts';
import { budgetProblems, budgetReport, measureModes, measureRegistry } from '../mcp/budget.ts';

const budgets = measureRegistry(registry.operations);
const modes = measureModes(registry.operations);
for (const line of budgetReport(budgets, modes)) process.stdout.write(`${line}\n`);

const problems = budgetProblems([...budgets, modes.dynamic], modes.discover);
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`over budget: ${problem}\n`);
  process.exit(1);
}
