import type { z } from 'zod';

/**
 * Finds names a caller sent that the schema does not declare, at any depth, so every operation
 * — current and future — refuses them without declaring its schemas strict (DESIGN.md §6 "unknown
 * inputs"). zod alone would silently drop them: a misspelt `descripton` would look like success.
 */
export interface UnknownField {
  /** Dotted path of the unknown name, e.g. `body.descripton`. */
  path: string;
  /** The names accepted at that level, for `valid_alternatives`. */
  accepted: string[];
}

// zod 4 keeps a schema's structure in `_zod.def`; only the parts walked here are typed.
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  valueType?: z.ZodType;
  items?: z.ZodType[];
  getter?: () => z.ZodType;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional', 'success']);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema that sees the caller's value: wrappers and pipes peeled (a preprocess pipe's output side). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in && def.out) current = defOf(def.in).type === 'transform' ? def.out : def.in;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
  return current;
}

/** Declared property names of an object schema (intersections merged); null when it takes any names. */
function declaredNames(schema: z.ZodType): Map<string, z.ZodType> | null {
  const def = defOf(schema);
  if (def.type === 'object') {
    const catchall = def.catchall ? defOf(def.catchall).type : undefined;
    if (catchall !== undefined && catchall !== 'never') return null; // loose object: extra names are data
    return new Map(Object.entries(def.shape ?? {}));
  }
  if (def.type === 'intersection' && def.left && def.right) {
    const left = declaredNames(unwrap(def.left));
    const right = declaredNames(unwrap(def.right));
    return left && right ? new Map([...left, ...right]) : null;
  }
  return null;
}

export function findUnknownFields(schema: z.ZodType, value: unknown, path: string): UnknownField[] {
  const found: UnknownField[] = [];
  walk(schema, value, path, found);
  return found;
}

function walk(schema: z.ZodType, value: unknown, path: string, found: UnknownField[]): void {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'union' && def.options) {
    // The branch the value matches decides which names are known; with none matching, zod reports.
    const branch = def.options.find((option) => option.safeParse(value).success);
    if (branch) walk(branch, value, path, found);
    return;
  }
  if (Array.isArray(value)) {
    if (def.type === 'array' && def.element) for (const [i, item] of value.entries()) walk(def.element as z.ZodType, item, `${path}.${i}`, found);
    if (def.type === 'tuple' && def.items) for (const [i, item] of def.items.entries()) walk(item, value[i], `${path}.${i}`, found);
    return;
  }
  if (!isPlainObject(value)) return;
  if (def.type === 'record' && def.valueType) {
    for (const [key, item] of Object.entries(value)) walk(def.valueType, item, `${path}.${key}`, found);
    return;
  }
  const names = declaredNames(inner);
  if (!names) return;
  const accepted = [...names.keys()];
  for (const [key, item] of Object.entries(value)) {
    const field = names.get(key);
    if (field) walk(field, item, `${path}.${key}`, found);
    else found.push({ path: `${path}.${key}`, accepted });
  }
}
