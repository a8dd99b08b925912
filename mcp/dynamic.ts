import type { CallToolResult, ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DomainError } from '../domain/kernel/errors.ts';
import type { Group } from '../registry/define-operation.ts';
import type { ToolSurface } from './build-server.ts';
import { callTool } from './call-tool.ts';
import { toolError, unknownTool } from './map-error.ts';
import { toJsonSchema, type JsonSchema } from './schema.ts';
import type { ToolEntry, ToolIndex } from './tools.ts';
import type { Selection } from './toolsets.ts';
import { metaToolValidator } from './validate-arguments.ts';

/**
 * Dynamic toolsets, as GitHub's MCP server offers them on stdio: the session starts with a small
 * set of toolsets plus two tools of its own; `enable_toolset` adds a toolset's tools and the client
 * is told with `notifications/tools/list_changed`. Stateful, so stdio only (one process, one session).
 */
export const LIST_TOOLSETS_TOOL = 'list_toolsets';
export const ENABLE_TOOLSET_TOOL = 'enable_toolset';
/** What a session starts with: company ids come first in every task. */
export const DEFAULT_DYNAMIC_TOOLSETS: readonly Group[] = ['companies'];

export const DYNAMIC_INSTRUCTIONS_NOTE =
  'Only some toolsets are loaded: call list_toolsets to see the others and enable_toolset to add one (its tools then appear in tools/list).';

// The meta tools' inputs, declared once in zod: the published schemas derive from them and the
// pipeline's parser checks calls against them (mcp/validate-arguments.ts).
const LIST_TOOLSETS_INPUT = z.strictObject({});
const enableToolsetInput = (available: readonly Group[]) => z.strictObject({ toolset: z.enum(available as [Group, ...Group[]]) });

function metaTools(available: readonly Group[]): Tool[] {
  return [
    {
      name: LIST_TOOLSETS_TOOL,
      title: 'List toolsets',
      description: 'Lists the toolsets (groups of tools) this server offers, which are enabled, and what their tools do.',
      inputSchema: toJsonSchema(LIST_TOOLSETS_INPUT, 'input') as Tool['inputSchema'],
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: ENABLE_TOOLSET_TOOL,
      title: 'Enable a toolset',
      description: "Adds a toolset's tools to this session; the tool list then changes. See list_toolsets first.",
      inputSchema: toJsonSchema(enableToolsetInput(available), 'input') as Tool['inputSchema'],
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
  ];
}

export interface DynamicOptions {
  /** Toolsets enabled at the start (narrowed to the selection); DEFAULT_DYNAMIC_TOOLSETS when absent. */
  initial?: readonly Group[];
}

export function dynamicTools(index: ToolIndex, selection: Selection, scopes: readonly string[] | null, options: DynamicOptions = {}): ToolSurface {
  const available = selection.toolsets.filter((group) => [...index.tools(selection).values()].some((e) => e.op.group === group && index.visible(e, scopes)));
  const enabled = new Set((options.initial ?? DEFAULT_DYNAMIC_TOOLSETS).filter((g) => available.includes(g)));
  const meta = metaTools(available);
  const schemaOf = (name: string): JsonSchema => meta.find((tool) => tool.name === name)?.inputSchema as JsonSchema;
  const listToolsets = metaToolValidator(LIST_TOOLSETS_TOOL, schemaOf(LIST_TOOLSETS_TOOL), LIST_TOOLSETS_INPUT);
  const enableToolset = metaToolValidator(ENABLE_TOOLSET_TOOL, schemaOf(ENABLE_TOOLSET_TOOL), enableToolsetInput(available));
  const loaded = (): ToolEntry[] => [...index.tools(selection).values()].filter((e) => enabled.has(e.op.group));
  let list: ListToolsResult | undefined;

  const describeToolsets = (): CallToolResult => {
    const toolsets = available.map((group) => {
      const tools = [...index.tools(selection).values()].filter((e) => e.op.group === group && index.visible(e, scopes));
      return { name: group, enabled: enabled.has(group), tools: tools.map((e) => e.name), summary: tools.map((e) => e.op.summary).join('; ') };
    });
    return structured({ toolsets });
  };

  return {
    listChanges: true,
    list: () =>
      (list ??= {
        tools: [
          ...meta,
          ...loaded()
            .filter((e) => index.visible(e, scopes))
            .map((e) => e.tool),
        ],
      }),
    call: async (name, args, context) => {
      if (name !== LIST_TOOLSETS_TOOL && name !== ENABLE_TOOLSET_TOOL) {
        const caller = await context.caller();
        const entry = loaded().find((e) => e.name === name);
        if (!entry)
          throw unknownTool(name, [...meta.map((t) => t.name), ...loaded().map((e) => e.name)], caller.requestId, caller.services.config.PUBLIC_BASE_URL);
        return callTool(entry, args, caller);
      }
      await context.charge();
      const caller = await context.caller();
      let group: Group;
      try {
        if (name === LIST_TOOLSETS_TOOL) {
          listToolsets(args);
          return describeToolsets();
        }
        group = enableToolset(args).toolset;
      } catch (error) {
        return toolError(error as DomainError, caller.requestId, caller.services.config.PUBLIC_BASE_URL);
      }
      const added = !enabled.has(group);
      enabled.add(group);
      list = undefined;
      if (added) await context.listChanged();
      const tools = loaded()
        .filter((e) => e.op.group === group && index.visible(e, scopes))
        .map((e) => e.name);
      return structured({ toolset: group, enabled: true, tools, changed: added });
    },
  };
}

const structured = (data: Record<string, unknown>): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data });
