import { GROUPS, type Group } from '../registry/define-operation.ts';
import { ConfigError, type Config } from '../domain/kernel/config.ts';
import { DomainError, type ErrorDetail } from '../domain/kernel/errors.ts';
import { FLAG_VALUES, parseFlag } from '../domain/kernel/flags.ts';
import { DEFAULT_VARIANT, VARIANTS, type Variant } from './naming.ts';
import { ALL_TOOLSETS } from '../registry/mcp-options.ts';

/**
 * Which tools one connection sees, as GitHub's MCP server does it: toolsets are registry groups,
 * read-only mode exposes only operations without side effects and wins over everything, and the
 * naming variant picks `webhooks.create` or `create_webhook`.
 */
export interface Selection {
  variant: Variant;
  /** Sorted, never empty: "all" is spelled out so equal selections share one cache entry. */
  toolsets: readonly Group[];
  readOnly: boolean;
}

/** What a caller asked for: `/mcp?toolsets=…&read_only=…&variant=…`, or the stdio command's flags. */
export interface SelectionRequest {
  toolsets?: string | undefined;
  readOnly?: string | boolean | undefined;
  variant?: string | undefined;
}

const ALL = ALL_TOOLSETS;

const split = (list: string): string[] =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const isGroup = (name: string): name is Group => (GROUPS as readonly string[]).includes(name);

/** The server's ceiling from MCP_TOOLSETS (all groups when unset); a bad name stops start-up. */
export function configuredToolsets(config: Pick<Config, 'MCP_TOOLSETS'>): readonly Group[] {
  const names = split(config.MCP_TOOLSETS ?? '');
  if (names.length === 0 || names.includes(ALL)) return [...GROUPS].sort();
  const unknown = names.filter((n) => !isGroup(n));
  if (unknown.length > 0)
    throw new ConfigError(`Invalid configuration: MCP_TOOLSETS: unknown toolset(s) ${unknown.join(', ')}; use ${GROUPS.join(', ')} or all`);
  return [...new Set(names.filter(isGroup))].sort();
}

/**
 * Resolves a request against the server's settings. A request may narrow the configured toolsets,
 * never widen them, and may turn read-only on but never off (MCP_READ_ONLY wins).
 * Throws VALIDATION_ERROR naming the accepted values.
 */
export function resolveSelection(config: Pick<Config, 'MCP_TOOLSETS' | 'MCP_READ_ONLY'>, request: SelectionRequest): Selection {
  const allowed = configuredToolsets(config);
  const details: ErrorDetail[] = [];
  let alternatives: string[] = [];

  let toolsets = allowed;
  if (request.toolsets !== undefined && request.toolsets.trim() !== '') {
    const names = split(request.toolsets);
    const outside = names.filter((n) => n !== ALL && !allowed.includes(n as Group));
    if (outside.length > 0) {
      details.push({ path: 'toolsets', message: `Unknown or disabled toolset(s): ${outside.join(', ')}.` });
      alternatives = [...allowed, ALL];
    } else if (!names.includes(ALL)) {
      toolsets = [...new Set(names as Group[])].sort();
    }
  }

  let readOnly = config.MCP_READ_ONLY;
  const flag = parseFlag(request.readOnly === '' ? undefined : request.readOnly);
  if (flag.ok) readOnly ||= flag.value ?? false;
  else {
    details.push({ path: 'read_only', message: `Use ${FLAG_VALUES.join(' or ')}.` });
    alternatives = [...FLAG_VALUES];
  }

  const variant = request.variant === undefined || request.variant === '' ? DEFAULT_VARIANT : request.variant;
  if (!(VARIANTS as readonly string[]).includes(variant)) {
    details.push({ path: 'variant', message: `Use ${VARIANTS.join(' or ')}.` });
    alternatives = [...VARIANTS];
  }

  if (details.length > 0) {
    throw new DomainError('VALIDATION_ERROR', {
      message: details.map((d) => `${d.path}: ${d.message}`).join('; '),
      details,
      validAlternatives: alternatives,
    });
  }
  return { variant: variant as Variant, toolsets, readOnly };
}

export const selectionKey = (s: Selection): string => `${s.variant}|${s.toolsets.join(',')}|${s.readOnly ? 'ro' : 'rw'}`;
