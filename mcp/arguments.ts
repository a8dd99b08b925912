import { DRY_RUN_PARAM } from '../pipeline/parse-input.ts';
import type { Operation } from '../registry/define-operation.ts';

/**
 * Tool argument names, derived mechanically from the registry: snake_case throughout, like the
 * JSON body fields. Path parameters too: `{companyId}` → `company_id`, and a bare `{id}` takes the
 * noun of the path segment before it (`/webhooks/{id}` → `webhook_id`), so no tool has an
 * ambiguous `id` beside `company_id`.
 */

/** `companyId` → `company_id`; snake_case names are left as they are. */
export const snakeCase = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();

/** `webhooks` → `webhook`, `companies` → `company`, `webhook-deliveries` → `webhook-delivery`. */
export const singular = (noun: string): string =>
  noun.endsWith('ies') ? `${noun.slice(0, -3)}y` : noun.endsWith('s') && !noun.endsWith('ss') ? noun.slice(0, -1) : noun;

/** The argument name of one path parameter of `path`. */
export function pathArgumentName(path: string, param: string): string {
  if (param !== 'id') return snakeCase(param);
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf('{id}');
  const noun = at > 0 ? segments[at - 1] : undefined;
  if (!noun || noun.startsWith('{')) return 'id';
  return `${snakeCase(singular(noun))}_id`;
}

/** Where one argument goes in the REST-shaped request that invoke() runs. */
export type ArgumentTarget =
  | { part: 'params' | 'query' | 'body'; key: string }
  /** A non-object body travels whole under `body`. */
  | { part: 'wrapped-body' }
  | { part: 'idempotency' }
  | { part: 'dry_run' }
  /** Surface-only: whether the answer may show the operation's secretOutput fields. */
  | { part: 'reveal' }
  /** An uploaded file's bytes, base64-encoded (MCP has no multipart), and its file name. */
  | { part: 'file-content' }
  | { part: 'file-name' };

/** The arguments that carry an operation's `input.file` over MCP. */
export const FILE_CONTENT_ARG = 'content_base64';
export const FILE_NAME_ARG = 'filename';

/** Argument name of a request part's field: path parameters renamed, query and body fields in snake_case. */
export function argumentName(op: Pick<Operation, 'path'>, part: 'params' | 'query' | 'body', key: string): string {
  return part === 'params' ? pathArgumentName(op.path, key) : snakeCase(key);
}

/** Arguments the MCP surface adds; REST sends the first two as a header and a query flag. */
export const IDEMPOTENCY_ARG = 'idempotency_key';
export const DRY_RUN_ARG = DRY_RUN_PARAM;
export const REVEAL_SECRET_ARG = 'reveal_secret';
/** The next page's cursor, added to a list tool's structuredContent (null on the last page). */
export const NEXT_CURSOR_FIELD = 'next_cursor';
