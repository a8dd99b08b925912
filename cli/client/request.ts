import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { CLI_NAME } from '../../registry/cli-command.ts';
import { API_VERSION } from '../../domain/kernel/version.ts';
import { JSON_MEDIA_TYPE, offeredMediaTypes } from '../../registry/media-types.ts';
import { usageError } from './errors.ts';
import type { CommandSpec, FieldFlag } from './spec.ts';
import type { Settings } from './settings.ts';

/**
 * Turns a command's flags into the HTTP request the API documents: path ids into the path,
 * query flags into the query string, body flags (over --data) into the JSON or multipart body.
 * Values are converted to the field's JSON type where they can be; anything else is sent as
 * typed so the API's own validation answers (exit 5) with its message and recovery hint.
 */

export const USER_AGENT = `${CLI_NAME}-cli (api ${API_VERSION})`;

export interface CommandInput {
  /** Field flag name → raw values as typed. */
  fields: Map<string, string[]>;
  data?: string;
  dryRun: boolean;
  idempotencyKey?: string;
  accept?: string;
  /** --lang: sent as Accept-Language, for answers written in several languages. */
  acceptLanguage?: string;
  /** Query overrides the CLI sets itself (--all's cursor and page size). */
  query?: Record<string, string>;
}

export interface BuiltRequest {
  method: string;
  url: string;
  /** For messages and tests: the path after /api/v1 with ids filled in. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string | FormData;
  /** The JSON body as sent, before serialisation. */
  json?: unknown;
  /** Set when the CLI made up the Idempotency-Key (the operation requires one and none was given). */
  generatedIdempotencyKey?: string;
}

export interface InputSource {
  readStdin(): Promise<string>;
}

function numeric(raw: string, integer: boolean): number | string {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) return raw;
  return value;
}

function scalar(kind: FieldFlag['kind'] | undefined, raw: string): unknown {
  if (kind === 'integer') return numeric(raw, true);
  if (kind === 'number') return numeric(raw, false);
  return raw;
}

/** A body field's JSON value from its flag text. */
function bodyValue(flag: FieldFlag, raw: string[]): unknown {
  const last = raw.at(-1)!;
  if (flag.nullable && last === 'null') return null;
  switch (flag.kind) {
    case 'list':
      // A JSON array (as the docs print lists) or comma-separated items, possibly repeated.
      if (raw.length === 1 && last.trimStart().startsWith('[')) return parseJson(flag, last);
      return raw.flatMap((text) => text.split(',')).map((item) => scalar(flag.itemKind, item.trim()));
    case 'boolean':
      return last === 'true';
    case 'json':
      return parseJson(flag, last);
    default:
      return scalar(flag.kind, last);
  }
}

function parseJson(flag: FieldFlag, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw usageError(`--${flag.flag} takes a JSON value; "${text}" is not JSON.`);
  }
}

async function readData(data: string, source: InputSource): Promise<unknown> {
  let text = data;
  if (data === '-') text = await source.readStdin();
  else if (data.startsWith('@')) {
    try {
      text = await readFile(data.slice(1), 'utf8');
    } catch (error) {
      throw usageError(`Cannot read ${data.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw usageError(`--data is not valid JSON${data === '-' ? ' (read from stdin)' : data.startsWith('@') ? ` (${data.slice(1)})` : ''}.`);
  }
}

async function fileBlob(path: string): Promise<{ blob: Blob; name: string }> {
  try {
    return { blob: new Blob([await readFile(path)]), name: basename(path) };
  } catch (error) {
    throw usageError(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

export async function buildRequest(spec: CommandSpec, input: CommandInput, settings: Settings, source: InputSource): Promise<BuiltRequest> {
  const { op } = spec;
  const valuesOf = (flag: FieldFlag): string[] | undefined => input.fields.get(flag.flag);

  let path = op.path;
  for (const flag of spec.flags.filter((f) => f.location === 'path')) {
    const value = valuesOf(flag)?.at(-1) ?? (flag.field === 'companyId' ? settings.defaultCompanyId : undefined);
    if (value === undefined) {
      throw usageError(
        `Missing --${flag.flag}.`,
        flag.field === 'companyId'
          ? `Pass --company <id> or set ACCOUNTING_COMPANY_ID (${CLI_NAME} companies list shows your companies).`
          : `See ${CLI_NAME} ${spec.group} ${spec.name} --help.`,
      );
    }
    path = path.replace(`{${flag.field}}`, encodeURIComponent(value));
  }

  const query: Record<string, string> = {};
  for (const flag of spec.flags.filter((f) => f.location === 'query')) {
    const raw = valuesOf(flag);
    if (raw !== undefined) query[flag.field] = flag.kind === 'list' ? raw.join(',') : raw.at(-1)!;
  }
  Object.assign(query, input.query);
  if (input.dryRun) query.dry_run = 'true';

  // Every representation the operation declares, its default first (an SIE export is text/plain
  // only: asking for JSON was a 406); --accept picks one where there are several.
  const offered = offeredMediaTypes(op);
  const headers: Record<string, string> = { accept: input.accept ?? (offered.length > 0 ? offered.join(', ') : JSON_MEDIA_TYPE), 'user-agent': USER_AGENT };
  if (input.acceptLanguage !== undefined) headers['accept-language'] = input.acceptLanguage;
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let generatedIdempotencyKey: string | undefined;
  if (input.idempotencyKey !== undefined) headers['idempotency-key'] = input.idempotencyKey;
  else if (op.idempotencyKey === 'required') {
    generatedIdempotencyKey = randomUUID();
    headers['idempotency-key'] = generatedIdempotencyKey;
  }

  let body: string | FormData | undefined;
  let json: unknown;
  if (spec.bodyMode !== 'none') {
    const base = input.data !== undefined ? await readData(input.data, source) : {};
    const bodyFlags = spec.flags.filter((f) => f.location === 'body' && valuesOf(f) !== undefined);
    if (bodyFlags.length > 0 && !isPlainObject(base)) throw usageError('Field flags need --data to be a JSON object.');
    if (spec.bodyMode === 'json') {
      json = isPlainObject(base) ? { ...base, ...Object.fromEntries(bodyFlags.map((f) => [f.field, bodyValue(f, valuesOf(f)!)])) } : base;
      body = JSON.stringify(json);
      headers['content-type'] = 'application/json';
    } else {
      const form = new FormData();
      for (const [field, value] of Object.entries(isPlainObject(base) ? base : {})) form.set(field, typeof value === 'string' ? value : JSON.stringify(value));
      for (const flag of bodyFlags) {
        const raw = valuesOf(flag)!.at(-1)!;
        if (flag.kind === 'file') {
          const { blob, name } = await fileBlob(raw);
          form.set(flag.field, blob, name);
        } else {
          form.set(flag.field, raw);
        }
      }
      body = form; // fetch sets the multipart content type with its boundary
    }
  }

  const search = new URLSearchParams(query).toString();
  return {
    method: op.method,
    url: `${settings.apiBase}${path}${search ? `?${search}` : ''}`,
    path,
    query,
    headers,
    ...(body !== undefined && { body }),
    ...(json !== undefined && { json }),
    ...(generatedIdempotencyKey && { generatedIdempotencyKey }),
  };
}
