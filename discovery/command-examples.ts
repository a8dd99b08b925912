import { cliCommandLine, cliFlagName, hasCliSurface, type FieldLocation } from '../registry/cli-command.ts';
import { requestBodyExample } from './examples.ts';
import { fullPath, isPublic, type DescribedOperation } from './operation-traits.ts';

/**
 * Runnable examples of one operation, from its registry examples: the curl request and the same
 * request as an `accounting` command. The skills and the reference docs print them; a test runs
 * every CLI line through the CLI's own parser and compares the request it builds with curl's.
 */

/** A curl request with the example values; the API key stays a shell variable. */
export function curlExample(op: DescribedOperation, api: string, keyVariable = '$API_KEY'): string {
  const params = (op.examples.params ?? {}) as Record<string, unknown>;
  const query = (op.examples.query ?? {}) as Record<string, unknown>;
  const path = fullPath(op)
    .replace(/^\/api\/v1/, '')
    .replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(String(params[name] ?? `<${name}>`)));
  const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();
  const parts = [`curl -s -X ${op.method} "${api}${path}${search ? `?${search}` : ''}"`];
  if (!isPublic(op)) parts.push(`-H "Authorization: Bearer ${keyVariable}"`);
  if (op.idempotencyKey !== 'none') parts.push('-H "Idempotency-Key: $(uuidgen)"');
  const body = requestBodyExample(op);
  if (body !== undefined) parts.push('-H "Content-Type: application/json"', `-d ${shellQuote(JSON.stringify(body))}`);
  if (op.input.file) {
    // multipart/form-data: the file part from a local file, then the text fields beside it.
    parts.push(`-F ${shellQuote(`${op.input.file.field}=@${op.input.file.exampleName}`)}`);
    for (const [field, value] of Object.entries((op.examples.body ?? {}) as Record<string, unknown>))
      parts.push(`-F ${shellQuote(`${field}=${String(value)}`)}`);
  }
  return parts.join(' \\\n  ');
}

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/** `--flag value` words for one example value: scalars as typed, anything structured as JSON. */
function flagWords(field: string, location: FieldLocation, value: unknown): string[] {
  const flag = `--${cliFlagName(field, location)}`;
  if (value === true) return [flag];
  if (value === false) return [`--no-${cliFlagName(field, location)}`];
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  return [flag, shellQuote(text)];
}

/**
 * The same example as an `accounting` command, or null for operations without the cli surface.
 * The key and base URL come from ACCOUNTING_API_KEY and ACCOUNTING_API_URL; the CLI makes up
 * an idempotency key itself where one is required.
 */
export function cliExample(op: DescribedOperation): string | null {
  if (!hasCliSurface(op)) return null;
  const words = [cliCommandLine(op)];
  const parts: [FieldLocation, unknown][] = [
    ['path', op.examples.params],
    ['query', op.examples.query],
    // A file upload's text fields are flags too (multipart has no JSON example), then the file.
    ['body', op.input.file ? { ...(op.examples.body as object | undefined), [op.input.file.field]: op.input.file.exampleName } : requestBodyExample(op)],
  ];
  for (const [location, example] of parts) {
    if (!example || typeof example !== 'object') continue;
    if (Array.isArray(example)) {
      words.push('--data', shellQuote(JSON.stringify(example)));
      continue;
    }
    for (const [field, value] of Object.entries(example)) {
      if (value !== undefined) words.push(...flagWords(field, location, value));
    }
  }
  return words.join(' ');
}
