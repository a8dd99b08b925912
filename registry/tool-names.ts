import type { Operation } from './define-operation.ts';

/**
 * MCP tool names, derived here in the registry because more than MCP states them: capability
 * records list both variants in `mcpToolRefs` and resolve a capability by either name.
 *
 * Two naming variants of the same tools: `namespaced` (`webhooks.create`) reads best and groups
 * tools by toolset; `flat` (`create_webhook`) is for clients that refuse dots in tool names.
 */
export const VARIANTS = ['namespaced', 'flat'] as const;
export type Variant = (typeof VARIANTS)[number];
export const DEFAULT_VARIANT: Variant = 'namespaced';

const words = (camel: string): string[] => camel.split(/(?=[A-Z])/).map((w) => w.toLowerCase());

/** `companies` → `company`, `webhooks` → `webhook`; groups are plain English plurals. */
const singular = (noun: string): string => (noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.endsWith('s') ? noun.slice(0, -1) : noun);

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
