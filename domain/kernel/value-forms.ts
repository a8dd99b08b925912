/**
 * How a value of each JSON type is written, for errors that refuse a value of the wrong type: both
 * surfaces (REST's zod issues, MCP's argument check) say which form is wanted and which was sent,
 * since "1930" against 1930 is the usual slip (issue 29).
 */
const FORMS: Readonly<Record<string, string>> = {
  integer: 'a whole JSON number, unquoted (e.g. 12500)',
  int: 'a whole JSON number, unquoted (e.g. 12500)',
  number: 'a JSON number, unquoted',
  string: 'a JSON string, quoted (e.g. "1930")',
  boolean: 'true or false, unquoted',
  array: 'a JSON array',
  object: 'a JSON object',
  null: 'null',
};

/** `integer` → "a whole JSON number, unquoted (e.g. 12500)"; unknown types as named. */
export const wantedForm = (types: readonly string[]): string => types.map((t) => FORMS[t] ?? t).join(' or ');

/** What was sent, in the same words: "a string", "a number with a fraction". */
export function sentForm(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : 'a number with a fraction';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** "Must be a JSON string, quoted (e.g. "1930"), not a number." plus what the field is, when known. */
export function wrongTypeMessage(types: readonly string[], sent: unknown, about?: string): string {
  const note = about ? ` ${about.trim().replace(/(?<![.!?])$/, '.')}` : '';
  return `Must be ${wantedForm(types)}, not ${sentForm(sent)}.${note}`;
}

/** Joins detail messages into one sentence list without doubled full stops ("integer.." → "integer."). */
export const joinDetails = (details: readonly { path: string; message: string }[]): string =>
  `${details.map((d) => `${d.path}: ${d.message.replace(/[.]+$/, '')}`).join('; ')}.`;
