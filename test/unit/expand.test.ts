import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OperationContext, Principal } from '../../domain/context.ts';
import type { Scope } from '../../domain/kernel/scopes.ts';
import { defineOperation, READ_ONLY, type ExpandDeclaration } from '../../registry/define-operation.ts';
import { applyExpansions } from '../../pipeline/expand.ts';
import { buildRegistry } from '../../registry/build-registry.ts';

/** The expansion machinery on its own: any operation gets it by declaring `expand`. */

const Item = z.object({ id: z.string(), kind: z.enum(['plain', 'secret']), owner: z.string().optional(), notes: z.array(z.string()).optional() });
type Item = z.infer<typeof Item>;

const owners: Record<string, string> = { a: 'Ada', b: 'Bo' }; // c's owner is gone
const declaration: ExpandDeclaration = {
  list: 'items',
  options: {
    owner: {
      field: 'owner',
      itemScope: (item) => ((item as Item).kind === 'secret' ? 'payroll:read' : null),
      load: async (_ctx, items) => new Map(items.flatMap((item) => (owners[item.id] ? [[item.id, owners[item.id]] as const] : []))),
    },
    notes: { field: 'notes', scope: 'events:read', load: async (_ctx, items) => new Map(items.map((item) => [item.id, [`note on ${item.id}`]])) },
  },
};
const data = {
  items: [
    { id: 'a', kind: 'plain' },
    { id: 'b', kind: 'secret' },
    { id: 'c', kind: 'plain' },
  ],
};
const as = (scopes: Scope[]): OperationContext => ({ actor: { scopes } as unknown as Principal }) as OperationContext;

describe('applyExpansions', () => {
  it('adds each field where it may, and names per expansion what it left out and why', async () => {
    const result = await applyExpansions(as([]), { expand: declaration }, data, ['notes', 'owner']);
    expect(result.data).toEqual({
      items: [
        { id: 'a', kind: 'plain', owner: 'Ada' },
        { id: 'b', kind: 'secret' },
        { id: 'c', kind: 'plain' },
      ],
    });
    // In declared order: owner (b needs payroll:read, c's owner is gone), then notes (no scope at all).
    expect(result.partial).toEqual([
      { expansion: 'owner', reason: 'insufficient_scope', required_scope: 'payroll:read', ids: ['b'] },
      { expansion: 'owner', reason: 'not_found', ids: ['c'] },
      { expansion: 'notes', reason: 'insufficient_scope', required_scope: 'events:read', ids: ['a', 'b', 'c'] },
    ]);
    expect(data.items[0]).not.toHaveProperty('owner'); // the handler's objects are left as they were
  });

  it('leaves nothing out for a key that may see everything, and does nothing when nothing is asked', async () => {
    const all = await applyExpansions(as(['payroll:read', 'events:read']), { expand: declaration }, data, ['owner', 'notes']);
    expect(all.partial).toEqual([{ expansion: 'owner', reason: 'not_found', ids: ['c'] }]);
    expect((all.data as typeof data).items[1]).toEqual({ id: 'b', kind: 'secret', owner: 'Bo', notes: ['note on b'] });
    expect(await applyExpansions(as([]), { expand: declaration }, data, [])).toEqual({ data, partial: [] });
  });
});

describe('expand declarations', () => {
  const operation = (output: z.ZodType) =>
    defineOperation({
      id: 'listThings',
      group: 'platform',
      method: 'GET',
      path: '/things',
      summary: 'List things',
      description: 'Lists things.',
      auth: { public: true },
      ...READ_ONLY,
      input: {},
      output,
      status: 200,
      expand: declaration,
      examples: { response: { items: [] } },
      surfaces: ['api'],
      handler: async () => ({ data: { items: [] } }),
    });

  it('adds a documented expand query parameter that accepts only the declared names', () => {
    const op = operation(z.object({ items: z.array(Item) }));
    const query = op.input.query!;
    expect(query.parse({ expand: 'owner, notes,owner' })).toEqual({ expand: ['owner', 'notes'] });
    const refused = query.safeParse({ expand: 'owner,price' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ code: 'invalid_value', values: ['owner', 'notes'] });
    expect((query.shape.expand as z.ZodType | undefined)?.description).toContain('notes (needs events:read)');
  });

  it('refuses at load an expansion whose field the item schema does not declare as optional', () => {
    expect(() => buildRegistry([operation(z.object({ items: z.array(Item.omit({ notes: true })) }))])).toThrow(
      /adds notes, which the item schema does not declare/,
    );
    expect(() => buildRegistry([operation(z.object({ items: z.array(Item.extend({ owner: z.string() })) }))])).toThrow(/owner must be optional/);
  });
});
