import { z } from 'zod';
import type { ExpandDeclaration } from './define-operation.ts';

/** The query parameter (and tool argument) that asks for expansions. */
export const EXPAND_PARAM = 'expand';

/**
 * `expand=webhook,event`: a comma-separated list of the operation's declared expansion names,
 * parsed to a de-duplicated list; an unknown name is a validation error listing the valid ones.
 * Its description is written from the declarations: the names and the scopes they need.
 */
export function expandParameter(declaration: ExpandDeclaration) {
  const names = Object.keys(declaration.options) as [string, ...string[]];
  // Short on purpose (it is in every tool schema): what each adds is described on its field.
  const described = Object.entries(declaration.options)
    .map(([name, expansion]) => (expansion.scope ? `${name} (needs ${expansion.scope})` : name))
    .join(', ');
  return z
    .string()
    .max(200)
    .transform((list) => [
      ...new Set(
        list
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== ''),
      ),
    ])
    .pipe(z.array(z.enum(names)))
    .optional()
    .describe(`Comma-separated: ${described}. Any left out (scope missing, target gone) is named in meta.partial_expansions.`);
}
