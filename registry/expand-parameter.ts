import { z } from 'zod';
import type { ExpandDeclaration, Operation } from './define-operation.ts';

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

/**
 * Load-time check: every expansion's field is an optional property of the item schema, so the
 * output check accepts an expanded item and the documents describe the field.
 */
export function expansionProblems(op: Operation): string[] {
  const declaration = op.expand;
  if (!declaration) return [];
  const output = op.output as z.ZodObject | null;
  let item: z.ZodType | undefined = output ?? undefined;
  if (declaration.list !== undefined) {
    const list = output?.shape?.[declaration.list];
    item = list instanceof z.ZodArray ? (list.element as z.ZodType) : undefined;
  }
  if (!(item instanceof z.ZodObject)) return [`${op.id}: expand needs an object item schema${declaration.list ? ` in data.${declaration.list}` : ''}`];
  const shape = (item as z.ZodObject).shape as Record<string, z.ZodType>;
  return Object.entries(declaration.options).flatMap(([name, expansion]) => {
    const field = shape[expansion.field];
    if (!field) return [`${op.id}: expansion ${name} adds ${expansion.field}, which the item schema does not declare`];
    return field.safeParse(undefined).success ? [] : [`${op.id}: expansion ${name}'s field ${expansion.field} must be optional`];
  });
}
