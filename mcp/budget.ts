import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { Operation } from '../registry/define-operation.ts';
import { GROUPS } from '../registry/define-operation.ts';
import { SCOPES } from '../domain/kernel/scopes.ts';
import { MAX_TOOL_DESCRIPTION } from './descriptions.ts';
import { discoveryTools } from './discover.ts';
import { dynamicTools } from './dynamic.ts';
import { VARIANTS, type Variant } from './naming.ts';
import { ToolIndex } from './tools.ts';

/** Spec Limits: the tools/list payload of the larger variant stays under about 63.6K tokens. */
export const TOOL_LIST_TOKEN_LIMIT = 63_600;
/**
 * Our own, tighter target with every operation exposed (issue 17), enforced: budgetProblems
 * reports a tools/list over it, and the budget test and `npm run mcp:budget` fail on it. Room is
 * made, not bought: shared output shapes are named once (`shared-shapes.ts`, issue 29).
 */
export const TOOL_LIST_TOKEN_TARGET = 24_000;
/** No single tool may crowd out the others. */
export const TOOL_TOKEN_LIMIT = 800;
/** Discovery mode exists for a tiny context: its three tools together. */
export const DISCOVER_TOKEN_LIMIT = 1_500;

let encoder: Tiktoken | undefined;
/** o200k_base, loaded on first use (its rank table is large). */
export const countTokens = (text: string): number => {
  encoder ??= new Tiktoken(o200kBase);
  return encoder.encode(text).length;
};

export interface ListBudget {
  /** `namespaced`, `flat`, `discover` or `dynamic`. */
  label: string;
  tools: number;
  /** Tokens of the serialised tools/list result. */
  total: number;
  perTool: { name: string; tokens: number }[];
  /** Tools whose description is over MAX_TOOL_DESCRIPTION characters. */
  longDescriptions: string[];
}
/** The budget of one naming variant. */
export type VariantBudget = ListBudget & { variant: Variant };

/** Measures one tools/list result as it goes on the wire (JSON, as the SDK serialises it). */
export function measureToolList(label: string, result: ListToolsResult): ListBudget {
  const perTool = result.tools.map((tool) => ({ name: tool.name, tokens: countTokens(JSON.stringify(tool)) }));
  return {
    label,
    tools: result.tools.length,
    total: countTokens(JSON.stringify(result)),
    perTool: perTool.sort((a, b) => b.tokens - a.tokens),
    longDescriptions: result.tools.filter((tool) => (tool.description ?? '').length > MAX_TOOL_DESCRIPTION).map((tool) => tool.name),
  };
}

const EVERYTHING = { toolsets: [...GROUPS].sort(), readOnly: false } as const;

/** Both variants with every operation exposed: all toolsets, writes included, a key holding every scope. */
export function measureRegistry(operations: readonly Operation[]): VariantBudget[] {
  const index = new ToolIndex(operations);
  return VARIANTS.map((variant) => ({ ...measureToolList(variant, index.list({ variant, ...EVERYTHING }, [...SCOPES])), variant }));
}

/** Discovery mode's three tools, and the tools a dynamic (stdio) session starts with. */
export function measureModes(operations: readonly Operation[]): { discover: ListBudget; dynamic: ListBudget } {
  const index = new ToolIndex(operations);
  const selection = { variant: 'namespaced' as const, ...EVERYTHING };
  return {
    discover: measureToolList('discover', discoveryTools(index, selection, [...SCOPES]).list()),
    dynamic: measureToolList('dynamic', dynamicTools(index, selection, [...SCOPES]).list()),
  };
}

/** Every rule the budget enforces, as readable problems (empty when within budget). */
export function budgetProblems(budgets: readonly ListBudget[], discover?: ListBudget): string[] {
  const problems: string[] = [];
  const largest = Math.max(...budgets.map((b) => b.total));
  if (largest > TOOL_LIST_TOKEN_LIMIT) problems.push(`tools/list is ${largest} tokens, over the spec's ${TOOL_LIST_TOKEN_LIMIT}`);
  else if (largest > TOOL_LIST_TOKEN_TARGET) problems.push(`tools/list is ${largest} tokens, over our target of ${TOOL_LIST_TOKEN_TARGET}`);
  for (const budget of budgets) {
    for (const tool of budget.perTool.filter((t) => t.tokens > TOOL_TOKEN_LIMIT)) {
      problems.push(`${tool.name} (${budget.label}) is ${tool.tokens} tokens, over ${TOOL_TOKEN_LIMIT}`);
    }
    for (const name of budget.longDescriptions) problems.push(`${name} (${budget.label}) has a description over ${MAX_TOOL_DESCRIPTION} characters`);
  }
  if (discover && discover.total > DISCOVER_TOKEN_LIMIT) problems.push(`discovery mode's tools/list is ${discover.total} tokens, over ${DISCOVER_TOKEN_LIMIT}`);
  return problems;
}

/** The printed report (npm run mcp:budget and the budget test): every figure the budget rules look at. */
export function budgetReport(variants: readonly VariantBudget[], modes: { discover: ListBudget; dynamic: ListBudget }): string[] {
  const larger = variants.reduce((a, b) => (b.total > a.total ? b : a));
  const average = (b: ListBudget) => (b.tools === 0 ? 0 : Math.round(b.total / b.tools));
  return [
    `MCP tools/list (o200k_base): spec limit ${TOOL_LIST_TOKEN_LIMIT}, target ${TOOL_LIST_TOKEN_TARGET}, per tool ${TOOL_TOKEN_LIMIT}, discovery mode ${DISCOVER_TOKEN_LIMIT}`,
    ...variants.map((b) => `  ${b.label.padEnd(10)} ${String(b.total).padStart(6)} tokens, ${b.tools} tools (${average(b)} per tool), every operation exposed`),
    `  ${'discover'.padEnd(10)} ${String(modes.discover.total).padStart(6)} tokens, ${modes.discover.tools} tools (?mode=discover, --mode discover)`,
    `  ${'dynamic'.padEnd(10)} ${String(modes.dynamic.total).padStart(6)} tokens, ${modes.dynamic.tools} tools at the start of a --mode dynamic session`,
    `Ten largest tools (${larger.label}):`,
    ...larger.perTool.slice(0, 10).map((tool) => `  ${String(tool.tokens).padStart(5)}  ${tool.name}`),
  ];
}
