import { z } from 'zod';
import { DEFAULT_POLL_OPERATION, type Operation } from '../../registry/define-operation.ts';
import { cliFlagName, cliSubcommand, hasCliSurface, type FieldLocation } from '../../registry/cli-command.ts';

/**
 * One command per operation with the `cli` surface, its flags generated from the operation's zod
 * schemas (as JSON Schema, the same conversion OpenAPI and MCP use): names, types, requiredness,
 * enum values, defaults and descriptions. Nothing here names a particular operation.
 */

/** How a flag's text becomes a value. `json` takes a JSON literal; `file` a path to upload. */
export type FlagKind = 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'json' | 'file';

export interface FieldFlag {
  /** Without dashes: `event-type`. */
  flag: string;
  /** The API's name: `event_type`, `companyId`. */
  field: string;
  location: FieldLocation;
  kind: FlagKind;
  /** For `list`: the kind of each comma-separated item. */
  itemKind?: FlagKind;
  required: boolean;
  nullable: boolean;
  enumValues?: string[];
  defaultValue?: unknown;
  maximum?: number;
  format?: string;
  description: string;
}

export type BodyMode = 'none' | 'json' | 'multipart';

export interface CommandSpec {
  op: Operation;
  group: string;
  name: string;
  flags: FieldFlag[];
  bodyMode: BodyMode;
  /** Cursor lists take --all. */
  paginated: boolean;
  /** Operations that answer 202 with an operation followed by getOperation take --wait. */
  waitable: boolean;
}

/** A 202 whose follow-up is the default poll operation answers with an operation to wait for (pollWith names other follow-ups: lists, not a status). */
export const isWaitable = (op: Pick<Operation, 'status' | 'pollWith'>): boolean =>
  op.status === 202 && (op.pollWith ?? DEFAULT_POLL_OPERATION) === DEFAULT_POLL_OPERATION;

/** Flags every command understands (some only where the operation supports them). */
export const GLOBAL_FLAGS = {
  help: { kind: 'boolean', description: 'Show this help.' },
  json: { kind: 'boolean', description: 'Print the exact `data` of the answer as JSON (for scripts and jq).' },
  output: { kind: 'string', description: 'Write the answer to this file instead of stdout (binary answers such as PDFs included).' },
  'base-url': { kind: 'string', description: 'API server, e.g. http://localhost:3000 (default: $ACCOUNTING_API_URL).' },
  'api-key': { kind: 'string', description: 'API key (default: $ACCOUNTING_API_KEY).' },
  accept: {
    kind: 'string',
    description: 'Media type to ask for, e.g. application/pdf where an operation offers one (default: every type the operation declares, its default first).',
  },
  data: { kind: 'string', description: 'The whole request body as JSON: inline, @file.json, or - for stdin. Field flags override its fields.' },
  'dry-run': { kind: 'boolean', description: 'Run every check and show the result without writing anything.' },
  'idempotency-key': { kind: 'string', description: 'Key that makes a retry replay the first result instead of writing twice.' },
  all: { kind: 'boolean', description: 'Follow the cursor through every page (progress on stderr).' },
  wait: {
    kind: 'boolean',
    description: 'Wait for the operation this starts (202) to finish: progress on stderr, the final operation as JSON on stdout, exit 0 only if it succeeded.',
  },
} as const satisfies Record<string, { kind: 'boolean' | 'string'; description: string }>;
export type GlobalFlag = keyof typeof GLOBAL_FLAGS;

/** The global flags that apply to one command. */
export function globalFlagsOf(spec: CommandSpec): GlobalFlag[] {
  const flags: GlobalFlag[] = ['json', 'output', 'accept', 'base-url', 'api-key', 'help'];
  if (spec.bodyMode !== 'none') flags.push('data');
  if (spec.op.dryRun) flags.push('dry-run');
  if (spec.op.idempotencyKey !== 'none') flags.push('idempotency-key');
  if (spec.paginated) flags.push('all');
  if (spec.waitable) flags.push('wait');
  return flags;
}

type JsonSchema = { [keyword: string]: unknown };

function toSchema(schema: z.ZodType): { root: JsonSchema; defs: Record<string, JsonSchema> } {
  const converted = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
  return { root: resolve(converted, defs), defs };
}

function resolve(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace(/^#\/\$defs\//, '');
  return defs[name] ?? {};
}

const SCALAR: Record<string, FlagKind> = { string: 'string', integer: 'integer', number: 'number', boolean: 'boolean' };

/** The flag kind of one property, with nullability peeled off (`string | null` is a nullable string). */
function kindOf(property: JsonSchema, defs: Record<string, JsonSchema>): Pick<FieldFlag, 'kind' | 'itemKind' | 'nullable' | 'enumValues' | 'format'> {
  let schema = resolve(property, defs);
  let nullable = false;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) {
    const nonNull = variants.filter((variant) => variant.type !== 'null');
    nullable = nonNull.length < variants.length;
    if (nonNull.length !== 1) return { kind: 'json', nullable };
    schema = resolve(nonNull[0]!, defs);
  }
  let type = schema.type;
  if (Array.isArray(type)) {
    nullable ||= type.includes('null');
    const rest = type.filter((t) => t !== 'null');
    type = rest.length === 1 ? rest[0] : undefined;
  }
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (values?.every((value) => typeof value === 'string')) {
    return { kind: 'string', nullable, enumValues: values as string[] };
  }
  if (type === 'string' && format === 'binary') return { kind: 'file', nullable };
  if (typeof type === 'string' && SCALAR[type]) return { kind: SCALAR[type]!, nullable, ...(format && { format }) };
  if (type === 'array') {
    const items = kindOf((schema.items ?? {}) as JsonSchema, defs);
    if (['string', 'integer', 'number'].includes(items.kind) && !items.nullable) {
      return { kind: 'list', itemKind: items.kind, nullable, ...(items.enumValues && { enumValues: items.enumValues }) };
    }
  }
  return { kind: 'json', nullable };
}

function fieldFlags(schema: z.ZodType | undefined, location: FieldLocation): FieldFlag[] {
  if (!schema) return [];
  const { root, defs } = toSchema(schema);
  const properties = (root.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((root.required ?? []) as string[]);
  return Object.entries(properties).map(([field, property]) => {
    const resolved = resolve(property, defs);
    return {
      flag: cliFlagName(field, location),
      field,
      location,
      ...kindOf(property, defs),
      required: location === 'path' || required.has(field),
      ...('default' in resolved && { defaultValue: resolved.default }),
      ...(typeof resolved.maximum === 'number' && { maximum: resolved.maximum }),
      description: typeof resolved.description === 'string' ? resolved.description : '',
    };
  });
}

/** An operation that takes a file (`input.file`) sends a multipart body: the file and the fields beside it. */
function bodyModeOf(op: Operation): BodyMode {
  if (op.input.file) return 'multipart';
  return op.input.body ? 'json' : 'none';
}

/** The file part as a flag naming a local path (`--file receipt.pdf`). */
function fileFlags(op: Operation): FieldFlag[] {
  const file = op.input.file;
  if (!file) return [];
  return [
    {
      flag: cliFlagName(file.field, 'body'),
      field: file.field,
      location: 'body',
      kind: 'file',
      required: true,
      nullable: false,
      description: `${file.description} A local file path.`,
    },
  ];
}

export function commandSpec(op: Operation): CommandSpec {
  const bodyMode = bodyModeOf(op);
  const root: JsonSchema = op.input.body ? toSchema(op.input.body).root : {};
  // A body that is not a plain object (e.g. an array) has no field flags: --data carries it whole.
  const bodyFlags = root.type === 'object' ? fieldFlags(op.input.body, 'body') : [];
  return {
    op,
    group: op.group,
    name: cliSubcommand(op),
    flags: [...fieldFlags(op.input.params, 'path'), ...fieldFlags(op.input.query, 'query'), ...bodyFlags, ...fileFlags(op)],
    bodyMode,
    paginated: Boolean(op.input.query && 'cursor' in op.input.query.shape),
    waitable: isWaitable(op),
  };
}

export interface CommandTable {
  commands: CommandSpec[];
  find(group: string, name: string): CommandSpec | undefined;
  groups(): string[];
}

/**
 * Every CLI command of these operations. Throws on a clash (two commands with one name, two
 * fields with one flag, a field flag that shadows a global one): loudly, at start, as the
 * registry does, never by silently dropping an input.
 */
export function buildCommands(operations: readonly Operation[]): CommandTable {
  const problems: string[] = [];
  const commands = operations.filter(hasCliSurface).map(commandSpec);
  const byName = new Map<string, CommandSpec>();
  for (const spec of commands) {
    const key = `${spec.group} ${spec.name}`;
    const clash = byName.get(key);
    if (clash) problems.push(`${spec.op.id}: command "${key}" is already ${clash.op.id}`);
    byName.set(key, spec);
    const seen = new Map<string, string>();
    for (const flag of spec.flags) {
      if (flag.flag in GLOBAL_FLAGS) problems.push(`${spec.op.id}: ${flag.location} field ${flag.field} would shadow the global --${flag.flag}`);
      const other = seen.get(flag.flag);
      if (other) problems.push(`${spec.op.id}: ${flag.location} field ${flag.field} and ${other} both become --${flag.flag}`);
      seen.set(flag.flag, `${flag.location} field ${flag.field}`);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid CLI commands:\n- ${problems.join('\n- ')}`);
  return {
    commands,
    find: (group, name) => byName.get(`${group} ${name}`),
    groups: () => [...new Set(commands.map((spec) => spec.group))],
  };
}
