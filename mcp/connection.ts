import { DomainError } from '../domain/kernel/errors.ts';
import type { Group } from '../registry/define-operation.ts';
import type { ToolSurface } from './build-server.ts';
import { mcpContent, type McpContent, type McpContentSources } from './content.ts';
import { directTools } from './direct-tools.ts';
import { DISCOVER_INSTRUCTIONS, discoveryTools } from './discover.ts';
import { DYNAMIC_INSTRUCTIONS_NOTE, dynamicTools } from './dynamic.ts';
import type { Glossary, ToolIndex } from './tools.ts';
import type { Selection } from './toolsets.ts';
import type { Variant } from './naming.ts';
import { DISCOVER_HINT, MCP_MODES, MCP_OPTIONS, type McpMode } from '../registry/mcp-options.ts';

/**
 * How a connection offers the operations: `tools` (each operation its own tool, the default),
 * `discover` (three tools: search, describe, invoke) or `dynamic` (stdio only: toolsets loaded on
 * request, with list-changed notifications).
 */
export const MODES = MCP_MODES;
export type Mode = McpMode;
/** Streamable HTTP is stateless here: no session to hold a dynamic tool list. */
export const HTTP_MODES: readonly Mode[] = MODES.filter((mode) => !(MCP_OPTIONS.mode.stdioOnly as readonly string[]).includes(mode));

/** `?mode=` or `--mode`: unset means `tools`; anything else outside `allowed` is a VALIDATION_ERROR naming the values. */
export function resolveMode(value: string | undefined, allowed: readonly Mode[] = MODES): Mode {
  if (value === undefined || value === '') return 'tools';
  if ((allowed as readonly string[]).includes(value)) return value as Mode;
  throw new DomainError('VALIDATION_ERROR', {
    message: `mode: use ${allowed.join(' or ')}.`,
    details: [{ path: 'mode', message: `Use ${allowed.join(' or ')}.` }],
    validAlternatives: [...allowed],
  });
}

// Sent once per session in the initialize result: the two habits that save an agent most calls.
const TOOLS_INSTRUCTIONS =
  'Bookkeeping API for the companies your API key can reach. List your companies first to get company ids; never guess ids. ' +
  'A failed call returns JSON with code, message, recovery_hint and valid_alternatives: follow the hint (required_scope names a missing scope). ' +
  `List tools return next_cursor: pass it back as cursor for the next page. ${DISCOVER_HINT}`;

/** The shared argument descriptions, stated once here instead of in every tool. */
export const glossaryText = (glossary: Glossary, speak: (text: string) => string = (text) => text): string =>
  glossary.size === 0
    ? ''
    : `\nArguments many tools share (their tools do not repeat this):\n${[...glossary].map(([name, text]) => `- ${name}: ${speak(text)}`).join('\n')}`;

export interface Connection {
  tools: ToolSurface;
  instructions: string;
  content?: McpContent;
}

export interface ConnectionOptions {
  mode: Mode;
  selection: Selection;
  /** The key's scopes (tools it lacks a scope for are not listed); null for an anonymous caller. */
  scopes: readonly string[] | null;
  content?: McpContentSources | undefined;
  /** Dynamic mode: the toolsets a session starts with. */
  initialToolsets?: readonly Group[];
}

/** Everything one connection serves, in its mode. */
export function connection(index: ToolIndex, options: ConnectionOptions): Connection {
  const { mode, selection, scopes } = options;
  const tools =
    mode === 'discover'
      ? discoveryTools(index, selection, scopes)
      : mode === 'dynamic'
        ? dynamicTools(index, selection, scopes, options.initialToolsets ? { initial: options.initialToolsets } : {})
        : directTools(index, selection, scopes);
  return {
    tools,
    instructions: instructionsFor(index, mode, selection.variant),
    ...(options.content && {
      content: mcpContent(options.content, { toolFor: (id) => index.byOperationId(selection, id), discover: mode === 'discover' }),
    }),
  };
}

// Per index, mode and naming variant, built once: connections are made per HTTP request.
const instructionCache = new WeakMap<ToolIndex, Map<string, string>>();
function instructionsFor(index: ToolIndex, mode: Mode, variant: Variant): string {
  const byMode = instructionCache.get(index) ?? new Map<string, string>();
  instructionCache.set(index, byMode);
  let text = byMode.get(`${mode}|${variant}`);
  if (text === undefined) {
    // Shared argument texts name operations by id ("from listPeriods"); the agent calls tools.
    const speak = (line: string) => index.speak(variant, line);
    text =
      mode === 'discover'
        ? DISCOVER_INSTRUCTIONS
        : `${TOOLS_INSTRUCTIONS}${mode === 'dynamic' ? ` ${DYNAMIC_INSTRUCTIONS_NOTE}` : ''}${glossaryText(index.glossary, speak)}`;
    byMode.set(`${mode}|${variant}`, text);
  }
  return text;
}
