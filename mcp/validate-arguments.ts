import type { z } from 'zod';
import { DomainError, type ErrorDetail } from '../domain/kernel/errors.ts';
import { FLAG_VALUES } from '../domain/kernel/flags.ts';
import { joinDetails, wrongTypeMessage } from '../domain/kernel/value-forms.ts';
import { parseArguments, parseInput } from '../pipeline/parse-input.ts';
import { snakeCase } from './arguments.ts';
import type { JsonSchema } from './schema.ts';
import { inToolTerms, toRequest } from './tool-request.ts';
import { DRY_RUN_ARG, IDEMPOTENCY_ARG } from './arguments.ts';
import type { ToolEntry } from './tools.ts';

/**
 * A tool's arguments checked before anything runs (no key lookup, no rate-limit count, no
 * database), as the MCP SDK's McpServer checks arguments before a callback. There is one validator
 * of values — the pipeline's (pipeline/parse-input.ts), the same parser invoke() runs for REST —
 * so the two surfaces cannot disagree about what is valid. What this file adds is the tool's own
 * framing: argument names (unknown, missing, the expected list) and the arguments MCP adds itself.
 */
export type ArgumentValidator = (args: Record<string, unknown>) => void;

interface Names {
  toolName: string;
  properties: readonly string[];
  required: ReadonlySet<string>;
}

const namesOf = (toolName: string, schema: JsonSchema): Names => ({
  toolName,
  properties: Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}),
  required: new Set((schema.required as string[] | undefined) ?? []),
});

/** An unknown or missing argument name, refused with the names the tool takes. */
function checkNames(names: Names, args: Record<string, unknown>, optional: ReadonlySet<string> = new Set()): void {
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(args)) {
    if (names.properties.includes(name)) continue;
    const guess = names.properties.find((p) => p === snakeCase(name));
    details.push({ path: name, message: guess ? `Unknown argument; did you mean ${guess}?` : 'Unknown argument.' });
  }
  const missing = [...names.required].filter((name) => args[name] === undefined);
  // An argument judged elsewhere when missing (the idempotency key) is named only beside other problems.
  const counted = missing.filter((name) => !optional.has(name));
  if (details.length === 0 && counted.length === 0) return;
  for (const name of missing) details.push({ path: name, message: 'Required.' });
  const expected = names.properties.map((name) => (names.required.has(name) ? `${name} (required)` : name));
  const takes = names.properties.length === 0 ? 'This tool takes no arguments.' : `This tool takes: ${expected.join(', ')}.`;
  throw new DomainError('VALIDATION_ERROR', {
    message: `Invalid arguments for ${names.toolName}: ${joinDetails(details)} ${takes}`,
    details,
    validAlternatives: [...names.properties],
  });
}

/** The arguments MCP adds to an operation's own (REST sends them as a header or a query flag). */
function checkSurfaceArguments(entry: Pick<ToolEntry, 'args'>, args: Record<string, unknown>): void {
  const details: ErrorDetail[] = [];
  let alternatives: string[] = [];
  for (const [name, target] of entry.args) {
    const value = args[name];
    if (value === undefined) continue;
    const wanted =
      target.part === 'idempotency' || target.part === 'file-content' || target.part === 'file-name'
        ? 'string'
        : target.part === 'dry_run' || target.part === 'reveal'
          ? 'boolean'
          : null;
    if (!wanted || typeof value === wanted) continue;
    details.push({ path: name, message: wrongTypeMessage([wanted], value) });
    // A flag is a JSON boolean: name the two values, as the pipeline's flag grammar does.
    if (wanted === 'boolean') alternatives = [...FLAG_VALUES];
  }
  if (details.length === 0) return;
  throw new DomainError('VALIDATION_ERROR', {
    message: joinDetails(details),
    details,
    ...(alternatives.length > 0 && { validAlternatives: alternatives }),
  });
}

type Tool = Pick<ToolEntry, 'name' | 'op' | 'args' | 'argumentFor'>;

/**
 * An operation's tool: names, then MCP's own arguments, then every value through the pipeline's
 * parser on the REST request the call stands for, its problems named as the tool names them.
 * A missing idempotency key alone is the pipeline's to judge, as over REST: a dry run needs none
 * (it writes nothing), and anything else is the catalogue's own IDEMPOTENCY_KEY_REQUIRED.
 */
export function toolValidator(tool: Tool, schema: JsonSchema): ArgumentValidator {
  const names = namesOf(tool.name, schema);
  const optional = new Set([IDEMPOTENCY_ARG]);
  return (args) => {
    checkNames(names, args, optional);
    checkSurfaceArguments(tool, args);
    try {
      parseInput(tool.op, toRequest(tool, args).raw);
    } catch (error) {
      throw inToolTerms(error, tool);
    }
    if (names.required.has(IDEMPOTENCY_ARG) && args[IDEMPOTENCY_ARG] === undefined && args[DRY_RUN_ARG] !== true) {
      throw new DomainError('IDEMPOTENCY_KEY_REQUIRED');
    }
  };
}

/** A tool of the MCP surface's own (discovery, toolsets): its names, then its zod schema, by the same parser. */
export function metaToolValidator<T extends z.ZodType>(toolName: string, inputSchema: JsonSchema, schema: T): (args: Record<string, unknown>) => z.infer<T> {
  const names = namesOf(toolName, inputSchema);
  return (args) => {
    checkNames(names, args);
    return parseArguments(schema, args);
  };
}
