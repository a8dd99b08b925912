import { DomainError, type ErrorDetail } from '../domain/kernel/errors.ts';
import { byteSourceOf } from '../domain/kernel/byte-source.ts';
import { DRY_RUN_PARAM, fileTooLarge, type Invocation, type Upload } from '../pipeline/invoke.ts';
import type { Operation } from '../registry/define-operation.ts';
import { IDEMPOTENCY_ARG } from './arguments.ts';
import type { ToolEntry } from './tools.ts';

/**
 * A tool call as the REST-shaped request it stands for (the pipeline runs that), and the
 * pipeline's errors back in the tool's own words.
 */

type Arguments = Record<string, unknown>;

/** REST sees path and query values as strings; giving the same schemas the same strings keeps both surfaces identical. */
const asText = (value: unknown): unknown => (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : value);

/**
 * Splits validated arguments back into the REST request they stand for, through the tool's
 * argument map (`company_id` → path `companyId`, `limit` → query, the rest → body fields).
 */
export function toRequest(entry: Pick<ToolEntry, 'args' | 'op'>, args: Arguments): Pick<Invocation, 'raw' | 'idempotencyKey' | 'loadUpload'> {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  let wrapped: unknown;
  let idempotencyKey: string | undefined;
  let content: unknown;
  let filename: string | null = null;
  for (const [name, value] of Object.entries(args)) {
    const target = entry.args.get(name);
    if (!target) continue; // validate() refused unknown names before this runs
    if (target.part === 'idempotency') idempotencyKey = typeof value === 'string' ? value : '';
    // The pipeline parses the flag (strictly, as REST's query flag); the schema already made it a boolean.
    else if (target.part === 'dry_run') query[DRY_RUN_PARAM] = value;
    else if (target.part === 'params') params[target.key] = String(asText(value));
    else if (target.part === 'query') query[target.key] = asText(value);
    else if (target.part === 'body') body[target.key] = value;
    else if (target.part === 'wrapped-body') wrapped = value;
    else if (target.part === 'file-content') content = value;
    else if (target.part === 'file-name') filename = typeof value === 'string' ? value : null;
  }
  const raw: Invocation['raw'] = { params, query };
  if (entry.op.input.body) raw.body = [...entry.args.values()].some((t) => t.part === 'wrapped-body') ? wrapped : body;
  const { op } = entry;
  // Read like REST's multipart body: only once scope and tenancy have been checked.
  // The decoded bytes stay in memory (bounded by the MCP body limit) and are stored like an upload's, in chunks.
  const loadUpload = op.input.file
    ? async (): Promise<Upload> => ({ fields: body, file: { filename, content: byteSourceOf(decodeFile(op, content)) } })
    : undefined;
  return { raw, idempotencyKey, ...(loadUpload && { loadUpload }) };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of a base64 file argument, strictly: Buffer.from would skip what is not base64, so a
 * damaged file would be stored damaged. Too long is refused before decoding, as REST stops reading.
 */
function decodeFile(op: Operation, content: unknown): Buffer {
  const file = op.input.file!;
  const text = typeof content === 'string' ? content.replace(/\s+/g, '') : '';
  if (text.length > Math.ceil(file.maxBytes / 3) * 4) throw fileTooLarge(op);
  if (!BASE64.test(text)) {
    const path = `body.${file.field}`;
    throw new DomainError('VALIDATION_ERROR', {
      message: `${path}: not valid base64.`,
      details: [{ path, message: 'Send the file base64-encoded (RFC 4648, with padding).' }],
    });
  }
  return Buffer.from(text, 'base64');
}

// ---------------------------------------------------------------------------------------------
// Errors in the tool's own words: `query.limit` is the argument `limit`, the Idempotency-Key
// header is the idempotency_key argument, an operation id is the tool's name.
// ---------------------------------------------------------------------------------------------

const SURFACE_PATHS: Record<string, string> = { 'header.Idempotency-Key': IDEMPOTENCY_ARG, 'query.dry_run': 'dry_run' };

function argumentPath(entry: Pick<ToolEntry, 'argumentFor'>, path: string): string {
  for (const [rest, arg] of Object.entries(SURFACE_PATHS)) if (path === rest) return arg;
  const [part, key, ...tail] = path.split('.');
  // A wrapped (non-object) body keeps its `body.…` paths: `body` is the argument's name.
  if (!part || key === undefined) return path;
  const arg = entry.argumentFor(part, key);
  return arg ? [arg, ...tail].join('.') : path;
}

/** A pipeline error restated for this tool; anything else passes through unchanged. */
export function inToolTerms(error: unknown, entry: Pick<ToolEntry, 'argumentFor'>): unknown {
  if (!(error instanceof DomainError)) return error;
  let message = error.hasCustomMessage ? error.message : undefined;
  let details: ErrorDetail[] | undefined;
  if (error.details) {
    details = error.details.map((detail) => {
      const path = argumentPath(entry, detail.path);
      if (message && path !== detail.path) message = message.split(`${detail.path}:`).join(`${path}:`);
      return { path, message: detail.message };
    });
  }
  if (message) message = message.replace(/\bIdempotency-Key\b/g, IDEMPOTENCY_ARG);
  return new DomainError(error.code, {
    ...(message !== undefined && { message }),
    ...(details && { details }),
    ...(error.requiredScope && { requiredScope: error.requiredScope }),
    ...(error.validAlternatives && { validAlternatives: error.validAlternatives }),
    membershipDenial: error.membershipDenial,
  });
}
