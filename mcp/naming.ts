import type { Operation } from '../registry/define-operation.ts';
import { toolName, type Variant } from '../registry/tool-names.ts';

export { DEFAULT_VARIANT, VARIANTS, toolName, type Variant } from '../registry/tool-names.ts';

// SEP-986 tool names; the flat variant additionally avoids dots.
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

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
