import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

/**
 * zod → JSON Schema (2020-12, zod 4's own converter), compacted for the token budget. Every rule
 * removes only what says nothing a client or a model can use, so validation of what we send and
 * accept is unchanged (invoke() still validates with the zod schemas themselves):
 * - no `$schema` (MCP's default dialect);
 * - no `pattern` beside a `format`: zod spells out a ~100-token regex for every uuid and date-time;
 * - no ±2^53-1 bounds: zod's safe-integer range, which every JSON integer we send is inside;
 * - no `propertyNames: {type: string}`: true of every JSON object;
 * - `anyOf [X, {type: null}]` for a plain X becomes `type: [X.type, "null"]`.
 * Output schemas (`io: 'output'`) keep the shape an agent plans with — field names, types, formats,
 * nullability, short enums — and lose what only a validator of our own answers would read:
 * `required`, bounds, patterns, `additionalProperties: false`, defaults, field descriptions and
 * long enums (the model reads the data itself; what a field means and which fields are always
 * present are in the OpenAPI document and the docs).
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  // `unrepresentable: 'any'`: a transform has no JSON form; `{}` is honest (invoke() still checks).
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return compact(json, io) as JsonSchema;
}

// Keywords whose values are data, not schemas: copied as they are.
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples', 'required']);
// Keywords whose values map names to schemas.
const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties']);
const SAFE_INT = Number.MAX_SAFE_INTEGER;
const OUTPUT_ONLY_NOISE = new Set([
  'description',
  'default',
  'title',
  'examples',
  'required',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
/** A longer list of values in an answer (e.g. the 24 event types) is a catalogue, not a shape: the type says enough. */
const MAX_OUTPUT_ENUM = 8;

function compact(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, io));
  if (!node || typeof node !== 'object') return node;
  const source = node as JsonSchema;
  const out: JsonSchema = {};
  const hasFormat = typeof source.format === 'string';
  for (const [key, value] of Object.entries(source)) {
    if (key === 'pattern' && hasFormat) continue;
    if ((key === 'minimum' && value === -SAFE_INT) || (key === 'maximum' && value === SAFE_INT)) continue;
    if (key === 'propertyNames' && isPlainString(value)) continue;
    if (io === 'output' && (OUTPUT_ONLY_NOISE.has(key) || (key === 'additionalProperties' && value === false))) continue;
    if (io === 'output' && key === 'enum' && Array.isArray(value) && value.length > MAX_OUTPUT_ENUM) continue;
    if (DATA_KEYWORDS.has(key)) {
      out[key] = value;
    } else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      // A map of names to schemas: compact the schemas, keep every name.
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, compact(sub, io)]));
    } else {
      out[key] = compact(value, io);
    }
  }
  return collapseNullable(out);
}

const isPlainString = (value: unknown): boolean =>
  !!value && typeof value === 'object' && Object.keys(value).length === 1 && (value as JsonSchema).type === 'string';

/** `{anyOf: [{type: "string", format: "uuid"}, {type: "null"}], description}` → `{type: ["string", "null"], format: "uuid", description}`. */
function collapseNullable(schema: JsonSchema): JsonSchema {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return schema;
  const nullIndex = options.findIndex((o: JsonSchema) => o.type === 'null' && Object.keys(o).length === 1);
  if (nullIndex === -1) return schema;
  const other = options[1 - nullIndex] as JsonSchema;
  // Only a single-typed schema with no keyword that the null branch would also have to satisfy.
  if (typeof other.type !== 'string' || 'const' in other) return schema;
  const { anyOf: _anyOf, ...rest } = schema;
  const merged: JsonSchema = { ...other, ...rest, type: [other.type, 'null'] };
  if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
  return merged;
}

export const isObjectSchema = (json: JsonSchema): json is JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] } =>
  json.type === 'object';
