import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.ts';
import { GROUPS, type Operation } from '../../../registry/define-operation.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { countTokens } from '../../../mcp/budget.ts';
import type { JsonSchema } from '../../../mcp/schema.ts';
import { shareShapes, type ShapeHolder } from '../../../mcp/shared-shapes.ts';
import { ToolIndex } from '../../../mcp/tools.ts';

const entry: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, date: { type: 'string' }, total: { type: 'integer' } },
};
const listOf = (item: JsonSchema): JsonSchema => ({ type: 'object', properties: { entries: { type: 'array', items: item } } });
const holder = (name: string, readOnly: boolean, scopes: string[], output: JsonSchema | undefined, group = 'ledger'): ShapeHolder => ({
  name,
  group,
  readOnly,
  scopes,
  output,
});
const REF = /^As in (.+)'s answer\.$/;

describe('shared output shapes: each entity spelled out once per client-visible tool list', () => {
  it('names the entity where a tool every client of the referrer also sees spells it out', () => {
    const [list, get, create, commit, other, small] = shareShapes([
      holder('list', true, ['r'], listOf(entry)),
      holder('get', true, ['r'], entry),
      holder('create', false, ['w'], entry),
      holder('commit', false, ['w'], entry),
      holder('elsewhere', true, ['r'], entry, 'tax'),
      holder('tiny', true, ['r'], { type: 'object', properties: { ok: { type: 'boolean' } } }),
    ]);
    // The tool whose whole answer is the entity keeps it; the list's items point at it.
    expect(get).toEqual(entry);
    expect(list).toEqual(listOf({ type: 'object', description: "As in get's answer." }));
    // A write-only key does not see `get`: the first write spells the entity out, the next names it.
    expect(create).toEqual(entry);
    expect(commit).toEqual({ type: 'object', description: "As in create's answer." });
    // Another toolset may be listed alone; small objects are cheaper to repeat than to name.
    expect(other).toEqual(entry);
    expect(small).toEqual({ type: 'object', properties: { ok: { type: 'boolean' } } });
  });

  it('never points a read at a write (read-only mode hides writes) nor at a tool needing another scope', () => {
    const [write, payroll, plain] = shareShapes([
      holder('write', false, ['r'], entry),
      holder('payslip', true, ['r', 'payroll'], entry),
      holder('plain', true, ['r'], listOf(entry)),
    ]);
    // Reads first: `payslip` spells the entity out, but `plain`'s key may lack `payroll`.
    expect(payroll).toEqual(entry);
    expect(plain).toEqual(listOf(entry));
    // A write may point at a read of its own scopes (read-only mode hides the write first).
    expect(write).toEqual({ type: 'object', description: "As in plain's answer." });
    const [read, writer] = shareShapes([holder('read', true, ['r'], entry), holder('writer', false, [], entry)]);
    // `writer` needs no scope, so a key without `r` lists it and not `read`.
    expect([read, writer]).toEqual([entry, entry]);
    const [reader, write2] = shareShapes([holder('reader', true, ['r'], listOf(entry)), holder('write2', false, ['r'], entry)]);
    expect(reader).toEqual(listOf(entry));
    expect(write2).toEqual({ type: 'object', description: "As in reader's answer." });
    const [onlyWrite, onlyRead] = shareShapes([holder('w', false, ['r'], entry), holder('rd', true, ['r'], listOf(entry))]);
    // Whatever the registry order, a read never points at a write.
    expect(onlyRead).toEqual(listOf(entry));
    expect(onlyWrite).toEqual({ type: 'object', description: "As in rd's answer." });
  });

  it('in the real tool list, every reference names a listed tool of the same toolset that spells the shape out in full', () => {
    const index = new ToolIndex(registry.operations);
    for (const variant of ['namespaced', 'flat'] as const) {
      const entries = index.all(variant);
      const byName = new Map(entries.map((e) => [e.name, e]));
      let references = 0;
      for (const e of entries) {
        const walk = (listed: unknown, full: unknown): void => {
          if (!listed || typeof listed !== 'object') return;
          const description = (listed as JsonSchema).description;
          const match = typeof description === 'string' ? REF.exec(description) : null;
          if (match) {
            references += 1;
            const owner = byName.get(match[1] as string);
            expect(owner, `${e.name} names ${match[1]}`).toBeDefined();
            expect(owner!.op.group).toBe(e.op.group);
            expect(owner!.scopes.every((s) => e.scopes.includes(s))).toBe(true);
            expect(owner!.readOnly || !e.readOnly).toBe(true);
            expect(JSON.stringify(owner!.tool.outputSchema)).toContain(JSON.stringify(full));
            return;
          }
          for (const [key, child] of Object.entries(listed)) walk(child, (full as Record<string, unknown>)[key]);
        };
        walk(e.tool.outputSchema, e.fullOutputSchema);
      }
      expect(references).toBeGreaterThan(20);
    }
  });

  it('makes a new operation that answers with an existing entity cost its own arguments, not the entity again', () => {
    const listed = (operations: readonly Operation[]) =>
      new ToolIndex(operations).list({ variant: 'namespaced', toolsets: [...GROUPS], readOnly: false }, [...SCOPES]);
    const before = countTokens(JSON.stringify(listed(registry.operations)));
    const commit = registry.operations.find((op) => op.id === 'commitJournalEntry')!;
    const get = listed(registry.operations).tools.find((t) => t.name === 'ledger.get_journal_entry')!;
    const added = Array.from({ length: 10 }, (_, i) => ({ ...commit, id: `approveJournalEntry${i}`, path: `${commit.path}/approve-${i}` }));
    const after = countTokens(JSON.stringify(listed([...registry.operations, ...added])));
    const perOperation = (after - before) / added.length;
    const entity = JSON.stringify(get.outputSchema).length / 4;
    // Each copy costs about what its name, description and arguments cost; the entity (≈ its
    // characters / 4 tokens) is not among them.
    expect(perOperation).toBeLessThan(entity);
    expect(perOperation).toBeLessThan(commit.description.length / 2 + 200);
  });
});
