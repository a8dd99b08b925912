import type { z } from 'zod';
import { DomainError, type ErrorDetail } from '../domain/kernel/errors.ts';
import { FLAG_VALUES, parseFlag } from '../domain/kernel/flags.ts';
import { joinDetails, wrongTypeMessage } from '../domain/kernel/value-forms.ts';
import type { Operation } from '../registry/define-operation.ts';
import { findUnstorableText } from './storable-text.ts';
import { findUnknownFields } from './unknown-fields.ts';

/**
 * The one validator of caller input, for every surface: REST's path, query and body, MCP's tool
 * arguments (mcp/ runs it before admission, as a client expects arguments checked first, and the
 * pipeline again inside invoke()), and the arguments of MCP's own meta tools. Strict: every
 * problem in every part is collected into one VALIDATION_ERROR, whose valid_alternatives name what
 * would have been accepted (the declared names beside an unknown one, the values of an enum).
 */

/** The query parameter (and MCP argument) that asks for a dry run. */
export const DRY_RUN_PARAM = 'dry_run';

/** The caller's input as sent: path parameters, query parameters and the body. */
export interface RawInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
}

export type ParsedInput = { params: unknown; query: unknown; body: unknown };

/** The value at a zod issue's path inside what was sent. */
const valueAt = (value: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), value);

/** Problems found so far, thrown together as one VALIDATION_ERROR. */
class Problems {
  readonly details: ErrorDetail[] = [];
  readonly alternatives = new Set<string>();

  add(path: string, message: string, accepted: readonly string[] = []): void {
    this.details.push({ path, message });
    for (const value of accepted) this.alternatives.add(value);
  }

  throwIfAny(): void {
    if (this.details.length === 0) return;
    throw new DomainError('VALIDATION_ERROR', {
      message: joinDetails(this.details),
      details: this.details,
      ...(this.alternatives.size > 0 && { validAlternatives: [...this.alternatives] }),
    });
  }
}

interface PartOptions {
  /** Path prefix of this part's problems (`body.amount`); null: bare names (`amount`). */
  part: 'params' | 'query' | 'body' | null;
  /** What a name is called in messages: parameter, field, argument. */
  noun: string;
  /** Names the part accepts beside its schema's (the `dry_run` flag). */
  extra: readonly string[];
  /** A typed value (JSON) is described by the form wanted and sent; text (path, query) by zod's words. */
  typed: boolean;
}

const pathOf = (part: PartOptions['part'], rest: readonly PropertyKey[]): string => [...(part ? [part] : []), ...rest.map(String)].join('.');

/** One part checked against its schema: its parsed value, or undefined when it failed (problems recorded). */
function parsePart(problems: Problems, schema: z.ZodType, value: unknown, options: PartOptions): unknown {
  const { part, noun, extra, typed } = options;
  const result = schema.safeParse(value);
  // A strict schema may explain an unknown name itself (e.g. "event_type cannot be changed").
  const explained = new Map<string, string>();
  for (const issue of result.success ? [] : result.error.issues) {
    if (issue.code !== 'unrecognized_keys') {
      const message =
        typed && issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')
          ? wrongTypeMessage([issue.expected], valueAt(value, issue.path))
          : issue.message;
      // An enum mismatch (e.g. an unknown event_type) tells the caller every accepted value.
      problems.add(pathOf(part, issue.path), message, issue.code === 'invalid_value' ? issue.values.map(String) : []);
    } else if (!issue.message.startsWith('Unrecognized key')) {
      for (const key of issue.keys) explained.set(pathOf(part, [...issue.path, key]), issue.message);
    }
  }
  // Unknown names, at any depth, whether or not the schema is strict: reported once each.
  for (const unknown of findUnknownFields(schema, value, part ?? '')) {
    const path = part ? unknown.path : unknown.path.replace(/^\./, '');
    const name = path.slice(path.lastIndexOf('.') + 1);
    const accepted = [...unknown.accepted, ...extra];
    problems.add(path, explained.get(path) ?? `Unknown ${noun} "${name}"; accepted: ${accepted.join(', ')}.`, accepted);
  }
  // What would reach the database: the parsed value (a schema may drop or clean a field, as a
  // stale cursor is dropped), or the raw one when parsing failed, so every problem is named at once.
  refuseUnstorable(problems, result.success ? result.data : value, part ?? '');
  return result.success ? result.data : undefined;
}

function refuseUnstorable(problems: Problems, value: unknown, part: string): void {
  for (const path of findUnstorableText(value, part)) {
    problems.add(path.replace(/^\./, ''), 'Contains a NUL character (U+0000), which cannot be stored; remove it.');
  }
}

/** An operation's input: params, query and body parsed with its schemas, plus its dry-run flag. */
export function parseInput(op: Operation, raw: RawInput): { input: ParsedInput; dryRun: boolean } {
  const problems = new Problems();
  const { [DRY_RUN_PARAM]: dryRunFlag, ...query } = raw.query;

  let dryRun = false;
  if (dryRunFlag !== undefined) {
    const flag = parseFlag(dryRunFlag);
    if (!op.dryRun) problems.add(`query.${DRY_RUN_PARAM}`, `${op.id} does not support dry runs.`);
    else if (!flag.ok) problems.add(`query.${DRY_RUN_PARAM}`, `Use ${FLAG_VALUES.join(' or ')}.`, FLAG_VALUES);
    else dryRun = flag.value === true;
  }

  const parseOf = (part: 'params' | 'query' | 'body', schema: z.ZodType | undefined, value: unknown): unknown => {
    const noun = part === 'query' ? 'parameter' : 'field';
    const extra = part === 'query' && op.dryRun ? [DRY_RUN_PARAM] : [];
    if (schema) return parsePart(problems, schema, value, { part, noun, extra, typed: part === 'body' });
    refuseUnstorable(problems, value, part);
    if (part === 'body') {
      if (value !== undefined) problems.add('body', `${op.id} takes no request body.`);
      return undefined;
    }
    for (const name of Object.keys((value ?? {}) as object)) problems.add(`${part}.${name}`, `Unknown ${noun} "${name}".`, extra);
    return {};
  };
  const input = {
    params: parseOf('params', op.input.params, raw.params),
    query: parseOf('query', op.input.query, query),
    body: parseOf('body', op.input.body, raw.body),
  };
  problems.throwIfAny();
  return { input, dryRun };
}

/**
 * Arguments that run no operation (an MCP meta tool's), checked like a JSON body: the parsed
 * value, or VALIDATION_ERROR naming each argument by its bare name.
 */
export function parseArguments<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const problems = new Problems();
  const parsed = parsePart(problems, schema, value, { part: null, noun: 'argument', extra: [], typed: true });
  problems.throwIfAny();
  return parsed as z.infer<T>;
}
