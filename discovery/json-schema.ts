import { z } from 'zod';

/**
 * zod → JSON Schema for the OpenAPI document, the reference docs and the skills.
 *
 * Why zod 4's own `z.toJSONSchema` and not a converter library: one library owns both the runtime
 * validation and its description, so the document cannot drift from what the API enforces; and
 * it emits JSON Schema draft 2020-12, which is exactly the schema dialect of OpenAPI 3.1, so the
 * output is embedded as is. `io: 'input'` describes what a caller may send (defaults optional,
 * coercions as their input type); `io: 'output'` what we send back. `.describe()` texts become
 * `description`s.
 */

/** A JSON Schema object as emitted (draft 2020-12); values stay unknown until inspected. */
export type JsonSchema = { [keyword: string]: unknown };

export type SchemaIo = 'input' | 'output';

export interface ConvertedSchema {
  /** The schema to embed; a `$ref` to `defs` when the schema refers to itself. */
  schema: JsonSchema;
  /** Named sub-schemas (zod `.meta({ id })` or recursion) for `components.schemas`. */
  defs: Record<string, JsonSchema>;
}

export const COMPONENT_REF_PREFIX = '#/components/schemas/';

/**
 * Converts one zod schema. `nameHint` names the schema in `defs` should it refer to itself
 * (zod emits `$ref: "#"`, which inside an OpenAPI document would point at the document root).
 */
export function toJsonSchema(schema: z.ZodType, io: SchemaIo, nameHint: string): ConvertedSchema {
  const { $schema: _dialect, $defs, ...root } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchema;
  const defs: Record<string, JsonSchema> = {};
  for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    defs[name] = rewriteRefs(def, nameHint) as JsonSchema;
  }
  const rewritten = rewriteRefs(root, nameHint) as JsonSchema;
  if (refersToRoot(root)) {
    defs[nameHint] = rewritten;
    return { schema: { $ref: COMPONENT_REF_PREFIX + nameHint }, defs };
  }
  return { schema: rewritten, defs };
}

/** `#/$defs/X` → `#/components/schemas/X`; `#` (the root) → `#/components/schemas/<rootName>`. */
function rewriteRefs(node: unknown, rootName: string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, rootName));
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value === '#' ? COMPONENT_REF_PREFIX + rootName : value.replace(/^#\/\$defs\//, COMPONENT_REF_PREFIX);
    } else {
      out[key] = rewriteRefs(value, rootName);
    }
  }
  return out;
}

function refersToRoot(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(refersToRoot);
  if (!node || typeof node !== 'object') return false;
  return Object.entries(node).some(([key, value]) => (key === '$ref' && value === '#') || refersToRoot(value));
}

/** Follows a `#/components/schemas/X` reference within `defs`; other schemas are returned as they are. */
export function resolveRef(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF_PREFIX)) return schema;
  return defs[ref.slice(COMPONENT_REF_PREFIX.length)] ?? schema;
}

/** The object's properties with their requiredness, for parameter lists and field tables. */
export function objectProperties(schema: JsonSchema): { name: string; schema: JsonSchema; required: boolean }[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, schema: property, required: required.has(name) }));
}

const MAX_ENUM_SHOWN = 8;

/** A short human type for docs: `string (uuid)`, `integer`, `"a" | "b"`, `array of object`, `string | null`. */
export function describeType(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') return schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1);
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.map((v) => JSON.stringify(v));
    // Long enumerations (e.g. the 24 event types) would swamp a table cell.
    return values.length <= MAX_ENUM_SHOWN ? values.join(' | ') : `one of ${values.length} values, e.g. ${values.slice(0, 3).join(', ')}`;
  }
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) return variants.map(describeType).join(' | ');
  const type = schema.type;
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') return `array of ${describeType((schema.items ?? {}) as JsonSchema)}`;
  if (typeof type === 'string') return typeof schema.format === 'string' ? `${type} (${schema.format})` : type;
  return 'any';
}
