import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../../domain/db/migrate.ts';

/**
 * The models of prisma/schema.prisma as the database should hold them: for each model its table
 * and, for each scalar field, the column, the PostgreSQL type Prisma gives it and whether it may
 * be null. A reader of this schema's subset of the Prisma schema language (Prisma's own parser is
 * inside its CLI, which cannot run here: DESIGN.md §4): anything it does not know — an enum, a
 * view, an `Unsupported(…)` type, a native type not listed below, a line of another shape — is an
 * error, never skipped, so the comparison cannot pass by not looking.
 */

export interface SchemaColumn {
  field: string;
  column: string;
  /** As PostgreSQL's format_type() prints it, e.g. `timestamp(6) with time zone`, `text[]`. */
  type: string;
  nullable: boolean;
  /**
   * The column's default as PostgreSQL's pg_get_expr() prints it (`'pending'::text`, `now()`),
   * `generated` for a generated column (`@default(dbgenerated())` here), null for none.
   */
  default: string | null;
}

export interface SchemaModel {
  model: string;
  table: string;
  columns: SchemaColumn[];
}

export const PRISMA_SCHEMA_PATH = join(MIGRATIONS_DIR, '..', 'schema.prisma');

/**
 * The column type of each Prisma scalar type without a native-type attribute, on PostgreSQL
 * (Prisma schema reference, "Model field scalar types":
 * https://www.prisma.io/docs/orm/reference/prisma-schema-reference#model-field-scalar-types).
 */
const DEFAULT_TYPES: Readonly<Record<string, string>> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/** The native-type attributes this schema uses (same reference, "PostgreSQL" native types). */
function nativeType(attribute: string, scalar: string): string {
  const timestamptz = /^Timestamptz\((\d)\)$/.exec(attribute);
  if (timestamptz && scalar === 'DateTime') return `timestamp(${timestamptz[1]}) with time zone`;
  if (attribute === 'Date' && scalar === 'DateTime') return 'date';
  if (attribute === 'Uuid' && scalar === 'String') return 'uuid';
  throw new Error(`schema.prisma: the native type @db.${attribute} on ${scalar} is not known to this reader; add it`);
}

/**
 * A field's @default as the column default the migrations must give it. uuid() Prisma fills in
 * itself, so the database's own gen_random_uuid() stands in for it (raw inserts rely on it).
 */
function columnDefault(value: string | undefined, type: string): string | null {
  if (value === undefined) return null;
  if (value === 'dbgenerated()') return 'generated';
  if (value === 'uuid()') return 'gen_random_uuid()';
  if (value === 'now()' || /^(-?\d+|true|false)$/.test(value)) return value;
  if (value === '[]' && type.endsWith('[]')) return `'{}'::${type}`;
  const text = /^"([^"\\]*)"$/.exec(value);
  if (text && (type === 'text' || type === 'jsonb')) return `'${text[1]!.replaceAll("'", "''")}'::${type}`;
  throw new Error(`schema.prisma: the default ${value} of a ${type} column is not known to this reader; add it`);
}

const FIELD = /^(\w+)\s+(\w+)(\?|\[\])?(?:\s+(.*))?$/;

export function readPrismaSchema(text = readFileSync(PRISMA_SCHEMA_PATH, 'utf8')): SchemaModel[] {
  const lines = text.split('\n').map((line) => line.replace(/\/\/.*$/, '').trim());
  const blocks: { kind: string; name: string; body: string[] }[] = [];
  let open: { kind: string; name: string; body: string[] } | null = null;
  for (const [index, line] of lines.entries()) {
    if (line === '') continue;
    if (open) {
      if (line === '}') {
        blocks.push(open);
        open = null;
      } else open.body.push(line);
      continue;
    }
    const start = /^(\w+)\s+(\w+)\s*\{$/.exec(line);
    if (!start) throw new Error(`schema.prisma line ${index + 1}: expected a block, found "${line}"`);
    open = { kind: start[1]!, name: start[2]!, body: [] };
  }
  if (open) throw new Error(`schema.prisma: block ${open.name} is not closed`);

  for (const block of blocks) {
    if (!['model', 'datasource', 'generator'].includes(block.kind))
      throw new Error(`schema.prisma: a ${block.kind} block (${block.name}) is not known to this reader`);
  }
  const models = blocks.filter((block) => block.kind === 'model');
  const modelNames = new Set(models.map((model) => model.name));
  return models.map((block) => {
    let table = block.name;
    const columns: SchemaColumn[] = [];
    for (const line of block.body) {
      if (line.startsWith('@@')) {
        const map = /^@@map\("(\w+)"\)$/.exec(line);
        if (map) table = map[1]!;
        continue;
      }
      const field = FIELD.exec(line);
      if (!field) throw new Error(`schema.prisma model ${block.name}: cannot read "${line}"`);
      const [, name, scalar, modifier, attributes = ''] = field as unknown as [string, string, string, string | undefined, string | undefined];
      if (modelNames.has(scalar)) continue; // a relation: no column of its own
      const base = DEFAULT_TYPES[scalar];
      if (!base) throw new Error(`schema.prisma model ${block.name}: the type ${scalar} of ${name} is not known to this reader`);
      const native = /@db\.(\w+(?:\(\d+\))?)/.exec(attributes)?.[1];
      const type = native ? nativeType(native, scalar) : base;
      const columnType = modifier === '[]' ? `${type}[]` : type;
      columns.push({
        field: name,
        column: /@map\("(\w+)"\)/.exec(attributes)?.[1] ?? name,
        type: columnType,
        nullable: modifier === '?',
        default: columnDefault(/@default\(((?:[^()]|\([^()]*\))*)\)/.exec(attributes)?.[1], columnType),
      });
    }
    return { model: block.name, table, columns };
  });
}
