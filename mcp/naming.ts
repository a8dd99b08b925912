import type { Operation } from '../registry/define-operation.ts';

/**
 * Two naming variants of the same tools: `namespaced` (`webhooks.create`) reads best and groups
 * tools by toolset; `flat` (`create_webhook`) is for clients that refuse dots in tool names.
 */
export const VARIANTS = ['namespaced', 'flat'] as const;
export type Variant = (typeof VARIANTS)[number];
export const DEFAULT_VARIANT: Variant = 'namespaced';

// SEP-986 tool names; the flat variant additionally avoids dots.
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

const words = (camel: string): string[] => camel.split(/(?=[A-Z])/).map((w) => w.toLowerCase());

/** `companies` → `company`, `webhooks` → `webhook`; groups are plain English plurals. */
const singular = (noun: string): string =>
  noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.endsWith('s') ? noun.slice(0, -1) : noun;

/**
 * Derived mechanically from the operation id and group, never written by hand:
 * `listWebhookDeliveries` in `webhooks` → `webhooks.list_deliveries` / `list_webhook_deliveries`.
 * The namespaced form drops the group's noun from the id (the verb, the first word, always stays).
 */
export function toolName(op: Pick<Operation, 'id' | 'group'>, variant: Variant): string {
  const parts = words(op.id);
  if (variant === 'flat') return parts.join('_');
  const nouns = new Set([op.group, singular(op.group)]);
  const index = parts.findIndex((word, i) => i > 0 && nouns.has(word));
  const rest = index === -1 ? parts : parts.filter((_, i) => i !== index);
  return `${op.group}.${rest.join('_')}`;
}

/** Names every operation in a variant; throws on an invalid or duplicate name (fail loudly at build). */
export function assignNames(ops: readonly Pick<Operation, 'id' | 'group'>[], variant: Variant): Map<string, string> {
  const byName = new Map<string, string>();
  const problems: string[] = [];
  for (const op of ops) {
    const name = toolName(op, variant);
    const clash = byName.get(name);
    if (clash) problems.push(`${op.id}: MCP tool name "${name}" (${variant}) is already used by ${clash}`);
    if (!TOOL_NAME.test(name) || (variant === 'flat' && name.includes('.'))) {
      problems.push(`${op.id}: "${name}" is not a valid ${variant} MCP tool name`);
    }
    byName.set(name, op.id);
  }
  if (problems.length > 0) throw new Error(`Invalid MCP tool names:\n- ${problems.join('\n- ')}`);
  return new Map([...byName].map(([name, id]) => [id, name]));
}
