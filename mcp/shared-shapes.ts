import type { JsonSchema } from './schema.ts';

/**
 * Output shapes spelled out once per tool list. A journal entry, a salary run or a VAT return is
 * the answer of five or six tools (get, create, commit, reverse, the list's items); the tool list
 * gave every one of them the same 300-token schema. Here each shared object shape is written in
 * full in one tool (its owner) and named in the others ("as ledger.get_journal_entry returns it"),
 * so a new operation returning an existing entity costs a line, not the entity again — the tool
 * list grows with the number of entities, not with the number of operations (issue 29).
 *
 * The owner is chosen so that every client that sees a referring tool sees the owner too: the same
 * toolset, read-only (so read-only mode keeps it), and needing no scope the referring tool does not
 * (so the scope filter keeps it). A shape with no such owner stays spelled out.
 */

/** Objects with fewer fields are cheaper to repeat than to name. */
const MIN_SHARED_FIELDS = 3;

export interface ShapeHolder {
  name: string;
  /** Toolset: a reference never leaves it (a client may select toolsets). */
  group: string;
  readOnly: boolean;
  scopes: readonly string[];
  output: JsonSchema | undefined;
}

type ObjectSchema = JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };

const isSharable = (node: unknown): node is ObjectSchema =>
  !!node &&
  typeof node === 'object' &&
  !Array.isArray(node) &&
  (node as JsonSchema).type === 'object' &&
  !!(node as JsonSchema).properties &&
  Object.keys((node as ObjectSchema).properties).length >= MIN_SHARED_FIELDS;

/** Every sharable object in a schema, outermost first. */
function* objects(node: unknown): Generator<string> {
  if (!node || typeof node !== 'object') return;
  if (isSharable(node)) yield JSON.stringify(node);
  for (const child of Array.isArray(node) ? node : Object.values(node)) yield* objects(child);
}

/**
 * Whether every client that lists `holder` also lists `owner`: one toolset, no scope the holder
 * does not need, and read-only mode (which hides writes) cannot hide the owner but keep the holder.
 */
const covers = (owner: ShapeHolder, holder: ShapeHolder): boolean =>
  owner.group === holder.group && owner.scopes.every((scope) => holder.scopes.includes(scope)) && (owner.readOnly || !holder.readOnly);

/**
 * Each holder's output schema with shapes another tool spells out replaced by a reference, the
 * outermost match first (a whole journal entry is named, not its lines one by one). Holders are
 * visited reads first, then smallest answer first — the tool whose whole answer is the entity
 * (`get_journal_entry`) before the tools that wrap it — and a holder only ever points at one that
 * kept the shape in full, so references never chain or loop. Holders without an output map to undefined.
 */
export function shareShapes(holders: readonly ShapeHolder[]): (JsonSchema | undefined)[] {
  const size = holders.map((h) => JSON.stringify(h.output ?? null).length);
  const order = holders.map((_, i) => i).sort((a, b) => Number(holders[b]?.readOnly) - Number(holders[a]?.readOnly) || size[a]! - size[b]! || a - b);
  /** Shape → the holders that spell it out in full. */
  const spelled = new Map<string, ShapeHolder[]>();
  const result: (JsonSchema | undefined)[] = holders.map(() => undefined);

  const rewrite = (node: unknown, holder: ShapeHolder): unknown => {
    if (!node || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((child) => rewrite(child, holder));
    if (isSharable(node)) {
      const key = JSON.stringify(node);
      const owner = spelled.get(key)?.find((candidate) => covers(candidate, holder));
      if (owner) return { type: 'object', description: `As in ${owner.name}'s answer.` };
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, rewrite(child, holder)]));
  };

  for (const i of order) {
    const holder = holders[i] as ShapeHolder;
    if (!holder.output) continue;
    const output = rewrite(holder.output, holder) as JsonSchema;
    result[i] = output;
    for (const key of new Set(objects(output))) spelled.set(key, [...(spelled.get(key) ?? []), holder]);
  }
  return result;
}
