import type { CallToolResult, ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DomainError } from '../domain/kernel/errors.ts';
import { GROUPS } from '../registry/define-operation.ts';
import { DISCOVERY_TOOLS } from '../registry/mcp-options.ts';
import type { ToolSurface } from './build-server.ts';
import { callTool } from './call-tool.ts';
import { closest, toolError, unknownTool } from './map-error.ts';
import { toolName, VARIANTS } from './naming.ts';
import { toJsonSchema, type JsonSchema } from './schema.ts';
import { IDEMPOTENCY_ARG, type Glossary, type ToolEntry, type ToolIndex } from './tools.ts';
import type { Selection } from './toolsets.ts';
import { metaToolValidator } from './validate-arguments.ts';

/**
 * Discovery mode: three tools instead of one per operation, for clients that want a tiny context.
 * `search_operations` finds operations, `describe_operation` gives one's arguments and an example,
 * `invoke_operation` runs it through exactly the code path of its own tool (same validation,
 * pipeline, scopes, errors and result). Stateless, so it works over Streamable HTTP as over stdio.
 */
export const SEARCH_TOOL = DISCOVERY_TOOLS.search;
export const DESCRIBE_TOOL = DISCOVERY_TOOLS.describe;
export const INVOKE_TOOL = DISCOVERY_TOOLS.invoke;

const SEARCH_LIMIT = { default: 10, max: 50 } as const;

const NAME_ARG = z.string().describe('Tool name from search_operations, e.g. companies.list (an operation id also works).');
// Each meta tool's input is declared once, in zod: its published schema derives from it, and the
// pipeline's parser checks calls against it (mcp/validate-arguments.ts).
const SEARCH_INPUT = z.strictObject({
  query: z.string().describe('Words to match, e.g. "webhook deliveries"; omit to list all.').optional(),
  group: z.enum(GROUPS).optional(),
  limit: z.number().int().min(1).max(SEARCH_LIMIT.max).default(SEARCH_LIMIT.default),
});
const DESCRIBE_INPUT = z.strictObject({ name: NAME_ARG });
const INVOKE_INPUT = z.strictObject({
  name: NAME_ARG,
  arguments: z.record(z.string(), z.unknown()).describe("The operation's arguments (see describe_operation).").optional(),
});
const INPUTS = { [SEARCH_TOOL]: SEARCH_INPUT, [DESCRIBE_TOOL]: DESCRIBE_INPUT, [INVOKE_TOOL]: INVOKE_INPUT } as const;

const TOOLS: Tool[] = [
  {
    name: SEARCH_TOOL,
    title: 'Search operations',
    description:
      'Finds API operations by words and toolset. Returns names, one-line summaries and risk (L0 read … L3 irreversible). Start here, then describe_operation.',
    inputSchema: toJsonSchema(SEARCH_INPUT, 'input') as Tool['inputSchema'],
    outputSchema: {
      type: 'object',
      properties: {
        operations: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              summary: { type: 'string' },
              group: { type: 'string' },
              risk: { type: 'string' },
              read_only: { type: 'boolean' },
            },
          },
        },
        total: { type: 'integer' },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: DESCRIBE_TOOL,
    title: 'Describe an operation',
    description: "Returns one operation's input schema, an example of its arguments, the scope it needs and its risk: what invoke_operation needs.",
    inputSchema: toJsonSchema(DESCRIBE_INPUT, 'input') as Tool['inputSchema'],
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: INVOKE_TOOL,
    title: 'Invoke an operation',
    description:
      'Runs one operation with its arguments and returns exactly what its own tool returns. Writes change data: check risk and use dry_run where offered.',
    inputSchema: toJsonSchema(INVOKE_INPUT, 'input') as Tool['inputSchema'],
    annotations: { destructiveHint: true, openWorldHint: false },
  },
];
const LIST: ListToolsResult = { tools: TOOLS };
const validatorOf = <T extends z.ZodType>(name: keyof typeof INPUTS, schema: T) =>
  metaToolValidator(name, TOOLS.find((tool) => tool.name === name)?.inputSchema as JsonSchema, schema);
const VALIDATORS = {
  [SEARCH_TOOL]: validatorOf(SEARCH_TOOL, SEARCH_INPUT),
  [DESCRIBE_TOOL]: validatorOf(DESCRIBE_TOOL, DESCRIBE_INPUT),
  [INVOKE_TOOL]: validatorOf(INVOKE_TOOL, INVOKE_INPUT),
};

/** The session instructions in discovery mode. */
export const DISCOVER_INSTRUCTIONS =
  'Bookkeeping API for the companies your API key can reach, reached through three tools: search_operations finds an operation, ' +
  'describe_operation shows its arguments and an example, invoke_operation runs it. Start with invoke_operation {"name":"companies.list"} ' +
  'to get company ids; never guess ids. Arguments are snake_case. A failed call returns JSON with code, message, recovery_hint and ' +
  'valid_alternatives: follow the hint (required_scope names a missing scope).';

export function discoveryTools(index: ToolIndex, selection: Selection, scopes: readonly string[] | null): ToolSurface {
  const callable = index.tools(selection);
  const resolve = (name: string): ToolEntry | undefined => {
    const direct = callable.get(name);
    if (direct) return direct;
    // Either variant's name or the operation id finds the same operation.
    return [...callable.values()].find((e) => e.op.id === name || VARIANTS.some((v) => toolName(e.op, v) === name));
  };

  return {
    listChanges: false,
    list: () => LIST,
    call: async (name, args, context) => {
      if (!isDiscoveryTool(name)) {
        const caller = await context.caller();
        throw unknownTool(
          name,
          TOOLS.map((t) => t.name),
          caller.requestId,
          caller.services.config.PUBLIC_BASE_URL,
        );
      }
      if (name === INVOKE_TOOL) {
        const caller = await context.caller();
        let call: z.infer<typeof INVOKE_INPUT>;
        try {
          call = VALIDATORS[INVOKE_TOOL](args);
        } catch (error) {
          return toolError(error as DomainError, caller.requestId, caller.services.config.PUBLIC_BASE_URL);
        }
        const entry = resolve(call.name);
        if (!entry) return unknownOperationResult(call.name, callable, caller.requestId, caller.services.config.PUBLIC_BASE_URL);
        return callTool(entry, call.arguments ?? {}, caller);
      }
      // Search and describe run no operation, but each costs a key lookup: count them like a list.
      await context.charge();
      const caller = await context.caller();
      try {
        const visible = [...callable.values()].filter((e) => index.visible(e, scopes));
        if (name === SEARCH_TOOL) return structured(search(visible, VALIDATORS[SEARCH_TOOL](args)));
        const wanted = VALIDATORS[DESCRIBE_TOOL](args).name;
        const entry = resolve(wanted);
        if (!entry) throw new UnknownOperation(wanted);
        return structured(describe(entry, index.glossary));
      } catch (error) {
        if (error instanceof UnknownOperation)
          return unknownOperationResult(error.operation, callable, caller.requestId, caller.services.config.PUBLIC_BASE_URL);
        if (error instanceof DomainError) return toolError(error, caller.requestId, caller.services.config.PUBLIC_BASE_URL);
        throw error;
      }
    },
  };
}

const isDiscoveryTool = (name: string): name is keyof typeof INPUTS => name in INPUTS;

const structured = (data: Record<string, unknown>): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data });

/** describe_operation's way out of its try block with a name nothing on this connection has. */
class UnknownOperation extends Error {
  constructor(readonly operation: string) {
    super(operation);
  }
}

/**
 * An unknown operation name is a wrong name, not a wrong id: the catalogue's NOT_FOUND hint
 * ("list the parent collection to find ids") would send the agent the wrong way, so the hint
 * points to search_operations, with the closest names as alternatives.
 */
function unknownOperationResult(name: string, callable: ReadonlyMap<string, ToolEntry>, requestId: string, publicBaseUrl: string): CallToolResult {
  const error = new DomainError('NOT_FOUND', {
    message: `No operation named ${name} on this connection (toolsets and read-only mode apply).`,
    validAlternatives: closest(name, [...callable.keys()]),
  });
  const hint = `Call ${SEARCH_TOOL} with words from the task (e.g. {"query":"journal entries"}) and use a name it returns; valid_alternatives has the closest names.`;
  return toolError(error, requestId, publicBaseUrl, undefined, hint);
}

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);

/** Ranks by how many query words an operation's name, summary and description contain (name words count most). */
function search(entries: readonly ToolEntry[], args: z.infer<typeof SEARCH_INPUT>): Record<string, unknown> {
  const wanted = words(args.query ?? '');
  const { group, limit } = args;
  const stem = (w: string) => w.replace(/(ies|es|s)$/, '');
  const ranked = entries
    .filter((e) => !group || e.op.group === group)
    .map((entry, order) => {
      const strong = new Set(words(`${entry.name} ${entry.op.id} ${entry.op.group} ${entry.op.summary}`).map(stem));
      const weak = new Set(words(entry.op.description).map(stem));
      const score = wanted.reduce((sum, w) => sum + (strong.has(stem(w)) ? 3 : weak.has(stem(w)) ? 1 : 0), 0);
      return { entry, score, order };
    })
    .filter((r) => wanted.length === 0 || r.score > 0)
    // Ties: the lower risk first (a read before the writes it informs), then the registry's order.
    .sort((a, b) => b.score - a.score || a.entry.op.risk.localeCompare(b.entry.op.risk) || a.order - b.order);
  return {
    operations: ranked.slice(0, limit).map(({ entry }) => ({
      name: entry.name,
      summary: entry.op.summary,
      group: entry.op.group,
      risk: entry.op.risk,
      read_only: entry.readOnly,
    })),
    total: ranked.length,
  };
}

/** The tool's own descriptor, with the shared argument descriptions written back in, and an example. */
function describe(entry: ToolEntry, glossary: Glossary): Record<string, unknown> {
  const schema = entry.tool.inputSchema as JsonSchema & { properties?: Record<string, JsonSchema> };
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => {
      const shared = glossary.get(name);
      return [name, shared && property.description === undefined ? { ...property, description: shared } : property];
    }),
  );
  return {
    name: entry.name,
    summary: entry.op.summary,
    description: entry.tool.description,
    group: entry.op.group,
    risk: entry.op.risk,
    read_only: entry.readOnly,
    required_scopes: entry.scopes,
    annotations: entry.tool.annotations,
    input_schema: { ...schema, properties },
    example_arguments: exampleArguments(entry),
    ...(entry.fullOutputSchema && { output_schema: entry.fullOutputSchema }),
  };
}

/** The registry's example request as this tool's arguments. */
function exampleArguments(entry: ToolEntry): Record<string, unknown> {
  const { examples } = entry.op;
  const out: Record<string, unknown> = {};
  for (const [name, target] of entry.args) {
    if (target.part === 'params' || target.part === 'query') {
      const value = (examples[target.part] as Record<string, unknown> | undefined)?.[target.key];
      if (value !== undefined) out[name] = value;
    } else if (target.part === 'body') {
      const value = (examples.body as Record<string, unknown> | undefined)?.[target.key];
      if (value !== undefined) out[name] = value;
    } else if (target.part === 'wrapped-body' && examples.body !== undefined) {
      out[name] = examples.body;
    } else if (target.part === 'idempotency' && entry.op.idempotencyKey === 'required') {
      out[IDEMPOTENCY_ARG] = '<a fresh UUID>';
    }
  }
  return out;
}
