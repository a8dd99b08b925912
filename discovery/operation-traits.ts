import type { ErrorCode } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG } from '../registry/error-catalog.ts';
import { isPublic, isTenantScoped, isWrite, requiredScope, requiredScopes, type Operation } from '../registry/define-operation.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { offeredMediaTypes } from '../registry/media-types.ts';

/**
 * Facts every discovery output derives from an operation declaration, computed in one place so
 * the OpenAPI document, the reference docs, the skills and the capability records agree.
 */

/** Media types a request body may use; JSON unless the declaration says otherwise. */
export type RequestContentType = 'application/json' | 'multipart/form-data';
/**
 * What discovery needs of an operation: the declaration without its handler. The request
 * content-type field is not in `defineOperation` yet (a proposed registry addition); until then
 * every registry operation takes JSON. Responses: JSON from `output`, binary media types from
 * `produces` (registry/media-types.ts).
 */
export type DescribedOperation = Omit<Operation, 'handler'> & {
  requestContentType?: RequestContentType;
};


/** `{companyId}`, `{id}`, … in path order. */
export const pathParamNames = (op: Pick<DescribedOperation, 'path'>): string[] =>
  [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);

/** The full path a caller sends, e.g. `/api/v1/companies/{companyId}`. */
export const fullPath = (op: Pick<DescribedOperation, 'path'>): string => API_PREFIX + op.path;

/** Cursor lists take the shared `cursor` query parameter (domain/kernel/pagination.ts). */
export const isPaginated = (op: DescribedOperation): boolean => Boolean(op.input.query && 'cursor' in op.input.query.shape);

export const takesIdempotencyKey = (op: DescribedOperation): boolean => op.idempotencyKey !== 'none';

export const requestContentType = (op: DescribedOperation): RequestContentType | null =>
  op.input.body ? (op.requestContentType ?? 'application/json') : null;

/** Media types of the success body, the default first (JSON when there is a JSON output); empty for a bare 204. */
export const responseMediaTypes = (op: DescribedOperation): string[] => offeredMediaTypes(op);

/** Whether the success body can be the JSON envelope. */
export const answersJson = (op: DescribedOperation): boolean => op.output !== null;

export const hasInput = (op: DescribedOperation): boolean => Boolean(op.input.params || op.input.query || op.input.body);

/**
 * The error codes an operation can answer with, derived from its traits the same way the
 * pipeline (registry/invoke.ts, rest/) produces them, ordered by status.
 */
export function possibleErrors(op: DescribedOperation): ErrorCode[] {
  const codes: ErrorCode[] = [];
  const authenticated = !isPublic(op);
  const jsonBody = requestContentType(op) === 'application/json';
  // Bad params, query or body, a malformed Idempotency-Key, or `?dry_run=true` on an operation
  // without dry runs: the pipeline refuses that on every operation, so every one can answer 400.
  codes.push('VALIDATION_ERROR');
  if (op.idempotencyKey === 'required') codes.push('IDEMPOTENCY_KEY_REQUIRED');
  if (authenticated) codes.push('UNAUTHENTICATED');
  if (requiredScope(op)) codes.push('INSUFFICIENT_SCOPE');
  // Non-members get the same 404 as an unknown company (DESIGN.md §6); path ids can be unknown.
  if (isTenantScoped(op) || pathParamNames(op).length > 0) codes.push('NOT_FOUND');
  if (takesIdempotencyKey(op)) codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED');
  if (jsonBody) codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  // Operations with binary representations negotiate on Accept (registry/media-types.ts).
  if ((op.produces?.length ?? 0) > 0) codes.push('NOT_ACCEPTABLE');
  if (authenticated) codes.push('RATE_LIMITED');
  codes.push('INTERNAL_ERROR');
  return codes.sort((a, b) => ERROR_CATALOG[a].status - ERROR_CATALOG[b].status);
}

/** Error codes grouped by HTTP status, for one OpenAPI response per status. */
export function errorsByStatus(op: DescribedOperation): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of possibleErrors(op)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

export { API_PREFIX, isPublic, isTenantScoped, isWrite, requiredScope, requiredScopes };
