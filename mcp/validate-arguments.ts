import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DomainError, type ErrorDetail } from '../domain/kernel/errors.ts';
import { FLAG_VALUES } from '../domain/kernel/flags.ts';
import { joinDetails, wrongTypeMessage } from '../domain/kernel/value-forms.ts';
import { snakeCase } from './arguments.ts';
import type { JsonSchema } from './schema.ts';

// ajv-formats is CommonJS: under NodeNext its default import is the plugin function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// One instance for every tool: compiling is the cost, and each tool compiles once (on first call).
// `verbose`: an error carries its schema, whose description (e.g. "whole öre") the message repeats.
const AJV = addFormats(new Ajv({ allErrors: true, strict: false, validateSchema: false, verbose: true }));

export type ArgumentValidator = (args: Record<string, unknown>) => void;

/**
 * A tool's arguments checked against its published input schema before anything runs (no key
 * lookup, no rate-limit count, no database), as the MCP SDK's McpServer checks arguments before a
 * callback. Throws VALIDATION_ERROR with one detail per argument, named as the tool names it, and
 * the expected argument names (or an enum's values) in valid_alternatives.
 */
export function argumentValidator(toolName: string, schema: JsonSchema): ArgumentValidator {
  let compiled: ValidateFunction | undefined;
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const expected = properties.map((name) => (required.has(name) ? `${name} (required)` : name));

  return (args) => {
    compiled ??= AJV.compile(schema);
    if (compiled(args)) return;
    const details: ErrorDetail[] = [];
    let alternatives: string[] = [];
    for (const error of compiled.errors ?? []) {
      const detail = toDetail(error, properties);
      if (!detail) continue;
      if (!details.some((d) => d.path === detail.path && d.message === detail.message)) details.push(detail);
      if (error.keyword === 'enum' && alternatives.length === 0) alternatives = (error.params.allowedValues as unknown[]).map(String);
      // A flag is a JSON boolean: name the two values, as the pipeline's flag grammar does.
      if (error.keyword === 'type' && error.params.type === 'boolean' && alternatives.length === 0) alternatives = [...FLAG_VALUES];
    }
    const namesWrong = (compiled.errors ?? []).some((e) => e.instancePath === '' && (e.keyword === 'required' || e.keyword === 'additionalProperties'));
    if (namesWrong) alternatives = properties;
    const problems = joinDetails(details);
    const takes = properties.length === 0 ? 'This tool takes no arguments.' : `This tool takes: ${expected.join(', ')}.`;
    throw new DomainError('VALIDATION_ERROR', {
      message: `Invalid arguments for ${toolName}: ${problems}${namesWrong ? ` ${takes}` : ''}`,
      details,
      validAlternatives: alternatives,
    });
  };
}

function toDetail(error: ErrorObject, properties: readonly string[]): ErrorDetail | null {
  if (error.instancePath === '' && error.keyword === 'additionalProperties') {
    const name = String(error.params.additionalProperty);
    const guess = properties.find((p) => p === snakeCase(name));
    return { path: name, message: guess ? `Unknown argument; did you mean ${guess}?` : 'Unknown argument.' };
  }
  if (error.instancePath === '' && error.keyword === 'required') {
    return { path: String(error.params.missingProperty), message: 'Required.' };
  }
  // `if`/`anyOf` wrappers repeat what their branches already said.
  if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') return null;
  const path = error.instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const message = error.keyword === 'additionalProperties' ? `unknown field ${String(error.params.additionalProperty)}` : (error.message ?? 'is invalid');
  const text = error.keyword === 'type' ? typeMessage(error) : `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
  return { path: path || '(arguments)', message: text };
}

/** A wrong type: the form wanted, the form sent, then what the field is (its schema description, e.g. whole öre). */
function typeMessage(error: ErrorObject): string {
  const about = (error.parentSchema as { description?: unknown } | undefined)?.description;
  return wrongTypeMessage(String(error.params.type).split(','), error.data, typeof about === 'string' ? about : undefined);
}
