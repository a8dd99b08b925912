import type { ListToolsResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../domain/kernel/scopes.ts';
import { DEFAULT_POLL_OPERATION, requiredScopes, type Operation } from '../registry/define-operation.ts';
import {
  argumentName,
  DRY_RUN_ARG,
  FILE_CONTENT_ARG,
  FILE_NAME_ARG,
  IDEMPOTENCY_ARG,
  NEXT_CURSOR_FIELD,
  REVEAL_SECRET_ARG,
  type ArgumentTarget,
} from './arguments.ts';
import { boilerplateSentences, toolDescription } from './descriptions.ts';
import { assignNames, VARIANTS, type Variant } from './naming.ts';
import { isObjectSchema, toJsonSchema, type JsonSchema } from './schema.ts';
import { shareShapes } from './shared-shapes.ts';
import { selectionKey, type Selection } from './toolsets.ts';
import { toolValidator, type ArgumentValidator } from './validate-arguments.ts';

export { DRY_RUN_ARG, IDEMPOTENCY_ARG, NEXT_CURSOR_FIELD, REVEAL_SECRET_ARG } from './arguments.ts';

/**
 * Arguments many tools share are described once, in the session instructions, instead of in every
 * tool. These are the surface's own; registry fields join them when BOILERPLATE_USES tools share
 * one description (e.g. company_id, cursor, limit).
 */
const SURFACE_ARGUMENTS: Record<string, string> = {
  [IDEMPOTENCY_ARG]: 'any unique string (a UUID); makes retrying a write safe — reuse it only to retry the identical call',
  [DRY_RUN_ARG]: 'true runs every check and returns the would-be result, changing nothing',
  cursor: "next_cursor from the previous page's answer; omit for the first page",
};
const BOILERPLATE_USES = 2;

/** One operation as a tool: the listed descriptor plus what a call needs to rebuild a REST-shaped request. */
export interface ToolEntry {
  name: string;
  op: Operation;
  tool: Tool;
  /** Every argument name → where it goes in the request invoke() runs. */
  args: ReadonlyMap<string, ArgumentTarget>;
  /** `params.companyId` → `company_id`: pipeline paths in the tool's own words. */
  argumentFor(part: string, key: string): string | undefined;
  /** Checks arguments before anything runs (names, then the pipeline's parser); throws VALIDATION_ERROR. */
  validate: ArgumentValidator;
  readOnly: boolean;
  /** Scope a key must hold to see the tool listed; null for public operations. */
  /** Every scope the operation needs (empty: public). */
  scopes: readonly Scope[];
  /** structuredContent is sent only when an output schema was declared (clients validate it). */
  structured: boolean;
  /** The output schema in full: the listed one names shapes another tool spells out (describe_operation shows this). */
  fullOutputSchema?: Tool['outputSchema'];
  /** A cursor list: structuredContent also carries next_cursor. */
  paginated: boolean;
  /** For a 202 operation: the tool that follows the queued work up (pollWith, else getOperation). */
  poll?: ToolEntry;
  /** Prose in this surface's words: operation ids (`listAccounts`) become this variant's tool names. */
  speak(text: string): string;
}

const isReadOnly = (op: Operation): boolean => op.sideEffects.every((effect) => effect === 'none');

/** Hints at their MCP defaults are left out (readOnlyHint false, idempotentHint false); destructiveHint defaults to true, so it is always said. */
function annotations(op: Operation): ToolAnnotations {
  // Hints other than openWorld only mean something for tools that change state (MCP spec).
  if (isReadOnly(op)) return { readOnlyHint: true, openWorldHint: false };
  const destructive = op.method === 'DELETE' || op.sideEffects.includes('delete') || op.risk === 'L3';
  return { destructiveHint: destructive, ...(op.idempotent && { idempotentHint: true }), openWorldHint: false };
}

interface InputShape {
  schema: JsonSchema & { properties: Record<string, JsonSchema>; required?: string[] };
  args: Map<string, ArgumentTarget>;
}

/** params + query + body merged into one object schema; throws when two parts claim one name. */
function inputShape(op: Operation): InputShape {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const args = new Map<string, ArgumentTarget>();
  const claim = (name: string, target: ArgumentTarget, schema: JsonSchema): void => {
    const previous = args.get(name);
    if (previous) throw new Error(`${op.id}: MCP argument "${name}" is declared by both ${previous.part} and ${target.part}`);
    args.set(name, target);
    properties[name] = schema;
  };
  const merge = (part: 'params' | 'query' | 'body', json: JsonSchema): void => {
    if (!isObjectSchema(json)) throw new Error(`${op.id}: ${part} must be an object schema`);
    const requiredHere = new Set(json.required ?? []);
    for (const [key, schema] of Object.entries(json.properties ?? {})) {
      const name = argumentName(op, part, key);
      claim(name, { part, key }, schema);
      if (requiredHere.has(key)) required.push(name);
    }
  };

  if (op.input.params) merge('params', toJsonSchema(op.input.params, 'input'));
  if (op.input.query) merge('query', toJsonSchema(op.input.query, 'input'));
  if (op.input.body) {
    const json = toJsonSchema(op.input.body, 'input');
    if (isObjectSchema(json)) merge('body', json);
    else {
      claim('body', { part: 'wrapped-body' }, json);
      required.push('body');
    }
  }
  if (op.input.file) {
    const { maxBytes, description } = op.input.file;
    claim(
      FILE_CONTENT_ARG,
      { part: 'file-content' },
      {
        type: 'string',
        contentEncoding: 'base64',
        description: `${description} Base64-encoded; at most ${maxBytes} bytes once decoded.`,
      },
    );
    claim(FILE_NAME_ARG, { part: 'file-name' }, { type: 'string', description: "The file's name, for display (e.g. kvitto.pdf)." });
    required.push(FILE_CONTENT_ARG);
  }
  if (op.idempotencyKey !== 'none') {
    claim(IDEMPOTENCY_ARG, { part: 'idempotency' }, { type: 'string' });
    if (op.idempotencyKey === 'required') required.push(IDEMPOTENCY_ARG);
  }
  if (op.dryRun) claim(DRY_RUN_ARG, { part: 'dry_run' }, { type: 'boolean' });
  if (op.secretOutput?.length) {
    claim(
      REVEAL_SECRET_ARG,
      { part: 'reveal' },
      { type: 'boolean', default: true, description: `false leaves ${op.secretOutput.join(', ')} out of the answer you see` },
    );
  }

  const schema: InputShape['schema'] = { type: 'object', properties };
  if (required.length > 0) schema.required = [...new Set(required)];
  schema.additionalProperties = false;
  return { schema, args };
}

/** Shared argument descriptions, stated once in the instructions instead of in each tool. */
export type Glossary = ReadonlyMap<string, string>;

/** Argument names described the same way wherever they appear, in at least BOILERPLATE_USES tools. */
function sharedArguments(shapes: readonly InputShape[]): Glossary {
  const uses = new Map<string, Map<string, number>>();
  for (const { schema } of shapes) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (typeof property.description !== 'string') continue;
      const byText = uses.get(name) ?? new Map<string, number>();
      byText.set(property.description, (byText.get(property.description) ?? 0) + 1);
      uses.set(name, byText);
    }
  }
  const glossary = new Map(Object.entries(SURFACE_ARGUMENTS));
  for (const [name, byText] of uses) {
    // Only a name that means one thing everywhere: `name` described two ways stays in each tool.
    const [text, count] = [...byText][0] as [string, number];
    if (byText.size === 1 && count >= BOILERPLATE_USES && !glossary.has(name)) glossary.set(name, text);
  }
  return glossary;
}

/** Drops a property's description where the glossary already says the same. */
function withoutShared(schema: InputShape['schema'], glossary: Glossary): InputShape['schema'] {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => {
      const replaced = name in SURFACE_ARGUMENTS || glossary.get(name) === property.description;
      if (!glossary.has(name) || !replaced) return [name, property];
      const { description: _shared, ...rest } = property;
      return [name, rest];
    }),
  );
  return { ...schema, properties };
}

/** An output schema with next_cursor added, for cursor lists. */
function withNextCursor(op: Operation, output: JsonSchema & { properties?: Record<string, JsonSchema> }): JsonSchema {
  if (output.properties?.[NEXT_CURSOR_FIELD]) throw new Error(`${op.id}: output already has a ${NEXT_CURSOR_FIELD} field`);
  return { ...output, properties: { ...output.properties, [NEXT_CURSOR_FIELD]: { type: ['string', 'null'] } } };
}

const isPaginated = (op: Operation): boolean => Boolean(op.input.query && 'cursor' in op.input.query.shape);

/** Notes a tool's description gets on this surface, generated from the operation's traits. */
function surfaceNotes(op: Operation): string[] {
  const notes: string[] = [];
  if (op.secretOutput?.length) {
    notes.push(
      `The answer shows ${op.secretOutput.map((f) => `\`${f}\``).join(', ')} to you (the model); pass ${REVEAL_SECRET_ARG}: false if you should not see it.`,
    );
  }
  return notes;
}

/**
 * Operation ids a description mentions (`until commitJournalEntry`), as this variant's tool names.
 * Text in parentheses or backticks is quoted data (e.g. an example id) and stays as written.
 */
const inToolNames = (text: string, names: ReadonlyMap<string, string>): string =>
  text
    .split(/(\([^)]*\)|`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/\b[a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b/g, (word) => names.get(word) ?? word)))
    .join('');

/**
 * An expansion's object (a delivery's whole webhook, its event) is what another tool returns; in
 * this tool's output schema it is named and typed but not spelled out again, which kept
 * webhooks.list_deliveries under the per-tool budget.
 */
function withoutExpansionShapes(op: Operation, output: JsonSchema): JsonSchema {
  if (!op.expand) return output;
  const props = (schema: JsonSchema | undefined): Record<string, JsonSchema> | undefined => schema?.properties as Record<string, JsonSchema> | undefined;
  const list = op.expand.list ? props(output)?.[op.expand.list] : undefined;
  const item = op.expand.list ? (list?.items as JsonSchema | undefined) : output;
  const fields = props(item);
  if (!item || !fields) return output;
  const compact: Record<string, JsonSchema> = { ...fields };
  for (const [name, expansion] of Object.entries(op.expand.options)) {
    const field = fields[expansion.field];
    if (field) compact[expansion.field] = { type: field.type, description: `Only with expand=${name}.` } as JsonSchema;
  }
  const compactItem = { ...item, properties: compact };
  if (!op.expand.list) return compactItem;
  return { ...output, properties: { ...props(output), [op.expand.list]: { ...list, items: compactItem } } };
}

function compileTool(
  op: Operation,
  name: string,
  shape: InputShape,
  glossary: Glossary,
  boilerplate: ReadonlySet<string>,
  names: ReadonlyMap<string, string>,
): ToolEntry {
  const output = op.output ? withoutExpansionShapes(op, toJsonSchema(op.output, 'output')) : null;
  // MCP output schemas describe structuredContent, which must be an object.
  const structured = output !== null && isObjectSchema(output);
  const paginated = isPaginated(op);
  const inputSchema = withoutShared(shape.schema, glossary);
  const tool: Tool = {
    name,
    title: op.summary,
    description: toolDescription(op, boilerplate, surfaceNotes(op), (sentence) => inToolNames(sentence, names)),
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(structured && { outputSchema: (paginated ? withNextCursor(op, output) : output) as Tool['outputSchema'] }),
    annotations: annotations(op),
  };
  const reverse = new Map<string, string>();
  for (const [arg, target] of shape.args) if ('key' in target) reverse.set(`${target.part}.${target.key}`, arg);
  // The pipeline names the file by its multipart part (`body.file`); over MCP it is the base64 argument.
  if (op.input.file) reverse.set(`body.${op.input.file.field}`, FILE_CONTENT_ARG);
  const argumentFor = (part: string, key: string): string | undefined => reverse.get(`${part}.${key}`);
  return {
    name,
    op,
    tool,
    args: shape.args,
    argumentFor,
    validate: toolValidator({ name, op, args: shape.args, argumentFor }, shape.schema),
    readOnly: isReadOnly(op),
    scopes: requiredScopes(op),
    structured,
    paginated,
    speak: (text) => inToolNames(text, names),
  };
}

export interface CompiledTools {
  entries: ToolEntry[];
  /** Shared argument descriptions (name → text), for the session instructions. */
  glossary: Glossary;
}

/** Every MCP operation as a tool in one naming variant; fails loudly on a bad or duplicate name. */
export function compileTools(operations: readonly Operation[], variant: Variant): ToolEntry[] {
  return compileAll(operations, variant).entries;
}

function compileAll(operations: readonly Operation[], variant: Variant): CompiledTools {
  const ops = operations.filter((op) => op.surfaces.includes('mcp'));
  const names = assignNames(ops, variant);
  const shapes = ops.map(inputShape);
  const glossary = sharedArguments(shapes);
  const boilerplate = boilerplateSentences(ops);
  const entries = ops.map((op, i) => compileTool(op, names.get(op.id) as string, shapes[i] as InputShape, glossary, boilerplate, names));
  const shared = shareShapes(
    entries.map((e) => ({ name: e.name, group: e.op.group, readOnly: e.readOnly, scopes: e.scopes, output: e.tool.outputSchema as JsonSchema | undefined })),
  );
  entries.forEach((entry, i) => {
    if (!entry.tool.outputSchema) return;
    entry.fullOutputSchema = entry.tool.outputSchema;
    entry.tool = { ...entry.tool, outputSchema: shared[i] as Tool['outputSchema'] };
  });
  const byId = new Map(entries.map((e) => [e.op.id, e]));
  for (const entry of entries) {
    if (entry.op.status !== 202) continue;
    const poll = byId.get(entry.op.pollWith ?? DEFAULT_POLL_OPERATION);
    if (!poll) continue;
    entry.poll = poll;
    // Queued work answers with the very object its poll tool returns (an Operation): named here,
    // spelled out once, in the poll tool's own output schema.
    if (entry.op.output !== null && entry.op.output === poll.op.output && entry.tool.outputSchema) {
      entry.tool = { ...entry.tool, outputSchema: { type: 'object', description: `The queued work, as ${poll.name} returns it.` } };
    }
  }
  return { entries, glossary };
}

// Selections and scope sets are few (bounded by groups and by the keys in use); the cap only guards
// against a pathological spread of scope sets.
const MAX_CACHED = 1000;

/**
 * Tools compiled once, at start-up, for both variants (so a bad name fails before serving), and
 * tools/list answers cached per (variant, toolsets, read-only, scope set) — never rebuilt per request.
 */
export class ToolIndex {
  readonly glossary: Glossary;
  private readonly compiled: Record<Variant, ToolEntry[]>;
  private readonly relevantScopes: ReadonlySet<string>;
  private readonly callable = new Map<string, ReadonlyMap<string, ToolEntry>>();
  private readonly lists = new Map<string, ListToolsResult>();
  private readonly byId = new WeakMap<ReadonlyMap<string, ToolEntry>, ReadonlyMap<string, ToolEntry>>();

  constructor(operations: readonly Operation[]) {
    const all = Object.fromEntries(VARIANTS.map((v) => [v, compileAll(operations, v)])) as Record<Variant, CompiledTools>;
    this.compiled = Object.fromEntries(VARIANTS.map((v) => [v, all[v].entries])) as Record<Variant, ToolEntry[]>;
    this.glossary = all.namespaced.glossary;
    this.relevantScopes = new Set(this.compiled.namespaced.flatMap((e) => e.scopes));
  }

  /** Prose in a variant's words: operation ids become its tool names. */
  speak(variant: Variant, text: string): string {
    return this.compiled[variant][0]?.speak(text) ?? text;
  }

  /** Every tool of a variant, whatever the selection (discovery mode filters itself). */
  all(variant: Variant): readonly ToolEntry[] {
    return this.compiled[variant];
  }

  /** Tools a connection may call: its toolsets and read-only mode. Scopes are checked by invoke(). */
  tools(selection: Selection): ReadonlyMap<string, ToolEntry> {
    const key = selectionKey(selection);
    let found = this.callable.get(key);
    if (!found) {
      const entries = this.compiled[selection.variant].filter((e) => selection.toolsets.includes(e.op.group) && (!selection.readOnly || e.readOnly));
      found = new Map(entries.map((e) => [e.name, e]));
      remember(this.callable, key, found);
    }
    return found;
  }

  /** One callable tool by its operation id (prompts name the tools of a skill's operations). */
  byOperationId(selection: Selection, operationId: string): ToolEntry | undefined {
    const tools = this.tools(selection);
    let byId = this.byId.get(tools);
    if (!byId) {
      byId = new Map([...tools.values()].map((e) => [e.op.id, e]));
      this.byId.set(tools, byId);
    }
    return byId.get(operationId);
  }

  /** Whether a key holding `scopes` (null: anonymous) sees the tool listed. A convenience, not a control. */
  visible(entry: ToolEntry, scopes: readonly string[] | null): boolean {
    return entry.scopes.every((scope) => (scopes ?? []).includes(scope));
  }

  /**
   * The tools/list result for a key: its callable tools minus those needing a scope it lacks
   * (null scopes: an anonymous caller, who sees public tools only).
   */
  list(selection: Selection, scopes: readonly string[] | null): ListToolsResult {
    const held = (scopes ?? []).filter((s) => this.relevantScopes.has(s)).sort();
    const key = `${selectionKey(selection)}|${[...new Set(held)].join(',')}`;
    let found = this.lists.get(key);
    if (!found) {
      const tools = [...this.tools(selection).values()].filter((e) => this.visible(e, held)).map((e) => e.tool);
      found = { tools };
      remember(this.lists, key, found);
    }
    return found;
  }
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, value);
}
