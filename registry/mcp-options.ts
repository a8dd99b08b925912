import { FLAG_VALUES } from '../domain/kernel/flags.ts';
import { GROUPS } from './define-operation.ts';
import { DEFAULT_VARIANT, VARIANTS } from './tool-names.ts';

/**
 * How an MCP connection is shaped: the one declaration the surface parses (`/mcp?…` and the stdio
 * command's flags) and every published text repeats (llms.txt, the MCP skill, the server's
 * instructions, the stdio usage), so no page can advertise an option the server does not take
 * (issue 29: an agent paid 23,116 tokens of tools when discovery mode's 449 would have done, because
 * nothing it read mentioned the mode).
 */

/** `tools`: one tool per operation; `discover`: three tools; `dynamic` (stdio): toolsets on request. */
export const MCP_MODES = ['tools', 'discover', 'dynamic'] as const;
export type McpMode = (typeof MCP_MODES)[number];

/** Discovery mode's three tools, in the order an agent uses them. */
export const DISCOVERY_TOOLS = { search: 'search_operations', describe: 'describe_operation', invoke: 'invoke_operation' } as const;

export const ALL_TOOLSETS = 'all';

export interface McpOption {
  /** The query parameter on `/mcp`. */
  query: string;
  /** The stdio command's flag (a boolean flag takes no value). */
  flag: string;
  values: readonly string[];
  /** Values the stateless HTTP endpoint does not serve. */
  stdioOnly?: readonly string[];
  /** Several values, comma-separated. */
  list?: true;
  default: string;
  /** What it does, one clause. */
  does: string;
}

export const MCP_OPTIONS = {
  mode: {
    query: 'mode',
    flag: '--mode',
    values: MCP_MODES,
    stdioOnly: ['dynamic'],
    default: 'tools',
    does:
      `tools lists one tool per operation; discover lists only ${DISCOVERY_TOOLS.search}, ${DISCOVERY_TOOLS.describe} and ` +
      `${DISCOVERY_TOOLS.invoke} (a few hundred tokens instead of the whole list: search, describe, then invoke by name); ` +
      'dynamic (stdio) starts with a few toolsets and enables more on request',
  },
  toolsets: {
    query: 'toolsets',
    flag: '--toolsets',
    values: [...GROUPS, ALL_TOOLSETS],
    list: true,
    default: ALL_TOOLSETS,
    does: 'only the tools of these groups',
  },
  readOnly: { query: 'read_only', flag: '--read-only', values: FLAG_VALUES, default: 'false', does: 'only operations without side effects' },
  variant: {
    query: 'variant',
    flag: '--variant',
    values: VARIANTS,
    default: DEFAULT_VARIANT,
    does: 'tool names like webhooks.create (namespaced) or create_webhook (flat)',
  },
} as const satisfies Record<string, McpOption>;

export type McpOptionName = keyof typeof MCP_OPTIONS;
/** Every query parameter `/mcp` takes; any other is refused, naming these. */
export const MCP_QUERY_PARAMETERS: readonly string[] = Object.values(MCP_OPTIONS).map((option) => option.query);

const valuesOf = (option: McpOption): string => {
  const values = option.values.map((v) => (option.stdioOnly?.includes(v) ? `${v} (stdio only)` : v));
  return option.list ? `comma-separated ${values.join(', ')}` : values.join(' | ');
};

/**
 * One Markdown line per option, for llms.txt, the MCP skill and the docs:
 * "- `?mode=` / `--mode`: tools | discover | dynamic (stdio only); default tools. tools lists …".
 */
export function mcpOptionLines(): string[] {
  return Object.values(MCP_OPTIONS).map(
    (option: McpOption) => `- \`?${option.query}=\` / \`${option.flag}\`: ${valuesOf(option)}; default ${option.default}. ${capitalise(option.does)}.`,
  );
}

const capitalise = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** The one sentence an agent most needs, for the server's instructions in tools mode. */
export const DISCOVER_HINT =
  `For a smaller context, connect with ?${MCP_OPTIONS.mode.query}=discover (stdio: ${MCP_OPTIONS.mode.flag} discover): three tools, ` +
  `${DISCOVERY_TOOLS.search}, ${DISCOVERY_TOOLS.describe} and ${DISCOVERY_TOOLS.invoke}, instead of one per operation; ` +
  `?${MCP_OPTIONS.toolsets.query}=… and ?${MCP_OPTIONS.readOnly.query}=true narrow the list.`;
