import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

/**
 * zod → JSON Schema (2020-12, zod 4's own converter), compacted for the token budget: no `$schema`
 * (MCP's default dialect), and no `pattern` beside a `format` — zod spells out a ~100-token regex
 * for every uuid and date-time whose `format` already says it. Validation is unaffected: invoke()
 * validates with the zod schemas themselves.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  // `unrepresentable: 'any'`: a transform has no JSON form; `{}` is honest (invoke() still checks).
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return compact(json) as JsonSchema;
}

// Keywords whose values are data, not schemas: copied as they are.
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  const hasFormat = typeof (node as JsonSchema).format === 'string';
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && hasFormat) continue;
    if (DATA_KEYWORDS.has(key)) {
      out[key] = value;
      continue;
    }
    // `properties` maps field names to schemas: compact the schemas, keep every name.
    out[key] = key === 'properties' && value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, compact(sub)]))
      : compact(value);
  }
  return out;
}

export const isObjectSchema = (json: JsonSchema): json is JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] } =>
  json.type === 'object';
