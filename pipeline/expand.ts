import { z } from 'zod';
import type { OperationContext } from '../domain/context.ts';
import { hasScope, type Scope } from '../domain/kernel/scopes.ts';
import type { ExpandDeclaration, Expansion, Operation } from '../registry/define-operation.ts';
import { EXPAND_PARAM } from '../registry/expand-parameter.ts';

/**
 * Applies the expansions a caller asked for (DESIGN.md §6 "expansions"): each declared expansion
 * adds its field to every item the caller may see it on. What had to be left out — the key lacks
 * the expansion's scope, or an item's target is gone — is named in `meta.partial_expansions`,
 * and the request still succeeds (spec "Response envelope").
 */

export const PartialExpansion = z
  .object({
    expansion: z.string().describe('The expansion that was left out, e.g. event.'),
    reason: z.enum(['insufficient_scope', 'not_found']).describe('insufficient_scope: the key lacks required_scope; not_found: the target is gone.'),
    required_scope: z.string().optional().describe('The scope that would have shown it (insufficient_scope only).'),
    ids: z.array(z.string()).describe('The items left without it.'),
  })
  .describe('An expansion left out of some or all items.');
export type PartialExpansion = z.infer<typeof PartialExpansion>;

type Item = { id: string } & Record<string, unknown>;

/** The names the caller asked for, as parsed by the `expand` parameter (empty when none). */
export const requestedExpansions = (query: unknown): readonly string[] =>
  ((query as Record<string, unknown> | null)?.[EXPAND_PARAM] as string[] | undefined) ?? [];

/** The items of `data` an expansion applies to, and how to put changed copies back. */
function itemsOf(declaration: ExpandDeclaration, data: unknown): { items: Item[]; rebuild: (items: Item[]) => unknown } {
  if (declaration.list === undefined) return { items: [data as Item], rebuild: (items) => items[0] };
  const list = declaration.list;
  const container = data as Record<string, unknown>;
  return { items: container[list] as Item[], rebuild: (items) => ({ ...container, [list]: items }) };
}

export async function applyExpansions(
  ctx: OperationContext,
  op: Pick<Operation, 'expand'>,
  data: unknown,
  requested: readonly string[],
): Promise<{ data: unknown; partial: PartialExpansion[] }> {
  const declaration = op.expand;
  if (!declaration || requested.length === 0) return { data, partial: [] };
  const held = ctx.actor?.scopes ?? [];
  const { items: original, rebuild } = itemsOf(declaration, data);
  const items = original.map((item) => ({ ...item }));
  const partial: PartialExpansion[] = [];
  const leaveOut = (expansion: string, ids: string[], scope?: Scope): void => {
    if (ids.length === 0) return;
    partial.push(scope ? { expansion, reason: 'insufficient_scope', required_scope: scope, ids } : { expansion, reason: 'not_found', ids });
  };

  // In declared order, whatever order the caller wrote them in.
  for (const [name, expansion] of Object.entries(declaration.options) as [string, Expansion][]) {
    if (!requested.includes(name)) continue;
    if (expansion.scope && !hasScope(held, expansion.scope)) {
      leaveOut(
        name,
        items.map((item) => item.id),
        expansion.scope,
      );
      continue;
    }
    // Items whose own data needs a scope the key lacks, grouped by that scope.
    const deniedBy = new Map<Scope, string[]>();
    const visible = items.filter((item) => {
      const scope = expansion.itemScope?.(item) ?? null;
      if (scope === null || hasScope(held, scope)) return true;
      deniedBy.set(scope, [...(deniedBy.get(scope) ?? []), item.id]);
      return false;
    });
    for (const [scope, ids] of deniedBy) leaveOut(name, ids, scope);
    const values = visible.length > 0 ? await expansion.load(ctx, visible) : new Map<string, unknown>();
    const gone: string[] = [];
    for (const item of visible) {
      const value = values.get(item.id);
      if (value === undefined) gone.push(item.id);
      else item[expansion.field] = value;
    }
    leaveOut(name, gone);
  }
  return { data: rebuild(items), partial };
}
