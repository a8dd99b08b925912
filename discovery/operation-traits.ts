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

export { API_PREFIX, isPublic, isTenantScoped, isWrite, requiredScope, requiredScopes };
