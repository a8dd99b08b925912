import type { ListToolsResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../domain/kernel/scopes.ts';
import { requiredScopes, type Operation } from '../registry/define-operation.ts';
import { DRY_RUN_PARAM } from '../registry/invoke.ts';
import { assignNames, VARIANTS, type Variant } from './naming.ts';
import { isObjectSchema, toJsonSchema, type JsonSchema } from './schema.ts';
import { selectionKey, type Selection } from './toolsets.ts';

/** Optional arguments every surface understands; REST sends them as a header and a query flag. */
export const IDEMPOTENCY_ARG = 'idempotency_key';
export const DRY_RUN_ARG = DRY_RUN_PARAM;

const IDEMPOTENCY_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Unique key (e.g. a UUID) that makes retrying this call safe; reuse it only for the identical call.',
};
const DRY_RUN_SCHEMA: JsonSchema = { type: 'boolean', description: 'true: run every check and return the result, changing nothing.' };

/** One operation as a tool: the listed descriptor plus what a call needs to rebuild a REST-shaped request. */
export interface ToolEntry {
  name: string;
  op: Operation;
  tool: Tool;
  /** Argument names that are path parameters and query parameters; the remaining ones form the body. */
  paramKeys: ReadonlySet<string>;
  queryKeys: ReadonlySet<string>;
  /** `fields`: the body's properties are top-level arguments; `wrapped`: a non-object body under `body`. */
  body: 'none' | 'fields' | 'wrapped';
  readOnly: boolean;
  /** Scope a key must hold to see the tool listed; null for public operations. */
  /** Every scope the operation needs (empty: public). */
  scopes: readonly Scope[];
  /** structuredContent is sent only when an output schema was declared (clients validate it). */
  structured: boolean;
}

const isReadOnly = (op: Operation): boolean => op.sideEffects.every((effect) => effect === 'none');

function annotations(op: Operation): ToolAnnotations {
  // Hints other than openWorld only mean something for tools that change state (MCP spec).
  if (isReadOnly(op)) return { readOnlyHint: true, openWorldHint: false };
  return {
    readOnlyHint: false,
    destructiveHint: op.method === 'DELETE' || op.sideEffects.includes('delete') || op.risk === 'L3',
    idempotentHint: op.idempotent,
    openWorldHint: false,
  };
}

/** params + query + body merged into one object schema; throws when two parts claim one name. */
function inputSchema(op: Operation): Pick<ToolEntry, 'paramKeys' | 'queryKeys' | 'body'> & { schema: Tool['inputSchema'] } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const owner = new Map<string, string>();
  const claim = (part: string, name: string, schema: JsonSchema): void => {
    const previous = owner.get(name);
    if (previous) throw new Error(`${op.id}: MCP argument "${name}" is declared by both ${previous} and ${part}`);
    owner.set(name, part);
    properties[name] = schema;
  };
  const merge = (part: string, json: JsonSchema): Set<string> => {
    if (!isObjectSchema(json)) throw new Error(`${op.id}: ${part} must be an object schema`);
    for (const [name, schema] of Object.entries(json.properties ?? {})) claim(part, name, schema);
    required.push(...(json.required ?? []));
    return new Set(Object.keys(json.properties ?? {}));
  };

  const paramKeys = op.input.params ? merge('params', toJsonSchema(op.input.params, 'input')) : new Set<string>();
  const queryKeys = op.input.query ? merge('query', toJsonSchema(op.input.query, 'input')) : new Set<string>();
  let body: ToolEntry['body'] = 'none';
  if (op.input.body) {
    const json = toJsonSchema(op.input.body, 'input');
    if (isObjectSchema(json)) {
      merge('body', json);
      body = 'fields';
    } else {
      claim('body', 'body', json);
      required.push('body');
      body = 'wrapped';
    }
  }
  if (op.idempotencyKey !== 'none') {
    claim('the idempotency argument', IDEMPOTENCY_ARG, IDEMPOTENCY_SCHEMA);
    if (op.idempotencyKey === 'required') required.push(IDEMPOTENCY_ARG);
  }
  if (op.dryRun) claim('the dry-run argument', DRY_RUN_ARG, DRY_RUN_SCHEMA);

  const schema: Tool['inputSchema'] = { type: 'object', properties };
  if (required.length > 0) schema.required = [...new Set(required)];
  return { schema, paramKeys, queryKeys, body };
}

function compileTool(op: Operation, name: string): ToolEntry {
  const input = inputSchema(op);
  const output = op.output ? toJsonSchema(op.output, 'output') : null;
  // MCP output schemas describe structuredContent, which must be an object.
  const structured = output !== null && isObjectSchema(output);
  const tool: Tool = {
    name,
    title: op.summary,
    description: op.description,
    inputSchema: input.schema,
    ...(structured && { outputSchema: output as Tool['outputSchema'] }),
    annotations: annotations(op),
  };
  return {
    name,
    op,
    tool,
    paramKeys: input.paramKeys,
    queryKeys: input.queryKeys,
    body: input.body,
    readOnly: isReadOnly(op),
    scopes: requiredScopes(op),
    structured,
  };
}

/** Every MCP operation as a tool in one naming variant; fails loudly on a bad or duplicate name. */
export function compileTools(operations: readonly Operation[], variant: Variant): ToolEntry[] {
  const ops = operations.filter((op) => op.surfaces.includes('mcp'));
  const names = assignNames(ops, variant);
  return ops.map((op) => compileTool(op, names.get(op.id) as string));
}

// Selections and scope sets are few (bounded by groups and by the keys in use); the cap only guards
// against a pathological spread of scope sets.
const MAX_CACHED = 1000;

/**
 * Tools compiled once, at start-up, for both variants (so a bad name fails before serving), and
 * tools/list answers cached per (variant, toolsets, read-only, scope set) — never rebuilt per request.
 */
export class ToolIndex {
  private readonly compiled: Record<Variant, ToolEntry[]>;
  private readonly relevantScopes: ReadonlySet<string>;
  private readonly callable = new Map<string, ReadonlyMap<string, ToolEntry>>();
  private readonly lists = new Map<string, ListToolsResult>();

  constructor(operations: readonly Operation[]) {
    this.compiled = Object.fromEntries(VARIANTS.map((v) => [v, compileTools(operations, v)])) as Record<Variant, ToolEntry[]>;
    this.relevantScopes = new Set(this.compiled.namespaced.flatMap((e) => e.scopes));
  }

  /** Tools a connection may call: its toolsets and read-only mode. Scopes are checked by invoke(). */
  tools(selection: Selection): ReadonlyMap<string, ToolEntry> {
    const key = selectionKey(selection);
    let found = this.callable.get(key);
    if (!found) {
      const entries = this.compiled[selection.variant].filter(
        (e) => selection.toolsets.includes(e.op.group) && (!selection.readOnly || e.readOnly),
      );
      found = new Map(entries.map((e) => [e.name, e]));
      remember(this.callable, key, found);
    }
    return found;
  }

  /**
   * The tools/list result for a key: its callable tools minus those needing a scope it lacks
   * (null scopes: an anonymous caller, who sees public tools only). A convenience, not a control.
   */
  list(selection: Selection, scopes: readonly string[] | null): ListToolsResult {
    const held = (scopes ?? []).filter((s) => this.relevantScopes.has(s)).sort();
    const key = `${selectionKey(selection)}|${[...new Set(held)].join(',')}`;
    let found = this.lists.get(key);
    if (!found) {
      const tools = [...this.tools(selection).values()].filter((e) => e.scopes.every((scope) => held.includes(scope))).map((e) => e.tool);
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
