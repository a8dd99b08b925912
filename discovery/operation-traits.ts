import { isPublic, isTenantScoped, isWrite, requiredScope, requiredScopes, type Operation } from '../registry/define-operation.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { offeredMediaTypes } from '../registry/media-types.ts';

/**
 * Facts every discovery output derives from an operation declaration, computed in one place so
 * the OpenAPI document, the reference docs, the skills and the capability records agree.
 */

/** Media types a request body may use: JSON, or multipart for operations that take a file. */
export type RequestContentType = 'application/json' | 'multipart/form-data';

/** What discovery needs of an operation: the declaration without its handler. */
export type DescribedOperation = Omit<Operation, 'handler'>;

/** `{companyId}`, `{id}`, … in path order. */
export const pathParamNames = (op: Pick<DescribedOperation, 'path'>): string[] => [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);

/** The full path a caller sends, e.g. `/api/v1/companies/{companyId}`. */
export const fullPath = (op: Pick<DescribedOperation, 'path'>): string => API_PREFIX + op.path;

/** Cursor lists take the shared `cursor` query parameter (domain/kernel/pagination.ts). */
export const isPaginated = (op: DescribedOperation): boolean => Boolean(op.input.query && 'cursor' in op.input.query.shape);

export const takesIdempotencyKey = (op: DescribedOperation): boolean => op.idempotencyKey !== 'none';

export const requestContentType = (op: DescribedOperation): RequestContentType | null =>
  op.input.file ? 'multipart/form-data' : op.input.body ? 'application/json' : null;

/** A success that is a file, not the JSON envelope (spec Endpoints 9). */
export const isBinaryResponse = (op: DescribedOperation): boolean => op.binaryResponse !== undefined;

/** Media types of the success body, the default first (JSON when there is a JSON output); empty for a bare 204. */
export const responseMediaTypes = (op: DescribedOperation): string[] => offeredMediaTypes(op);

/** Whether the success body can be the JSON envelope. */
export const answersJson = (op: DescribedOperation): boolean => op.output !== null && !isBinaryResponse(op);

/** The representation an operation offers in several languages (a report PDF), if any. */
export const multilingualRepresentation = (op: DescribedOperation): { mediaType: string; languages: readonly [string, ...string[]] } | undefined => {
  const representation = op.produces?.find((candidate) => (candidate.languages?.length ?? 0) > 1);
  return representation && { mediaType: representation.mediaType, languages: representation.languages as readonly [string, ...string[]] };
};

/**
 * How a caller chooses that language (pipeline/negotiate.ts: q-values, a range matching on its
 * primary subtag): the OpenAPI Accept-Language parameter and the reference docs say this.
 */
export function languageHelp(op: DescribedOperation): string | undefined {
  const representation = multilingualRepresentation(op);
  if (!representation) return undefined;
  const [first] = representation.languages;
  return (
    `Accept-Language chooses the language of a \`${representation.mediaType}\` answer, all of it in one: ${representation.languages.join(' or ')} ` +
    `(${first} by default), by quality value; a regional tag such as en-GB chooses its language. Content-Language names the one chosen.`
  );
}

export const hasInput = (op: DescribedOperation): boolean => Boolean(op.input.params || op.input.query || op.input.body);

export { API_PREFIX, isPublic, isTenantScoped, isWrite, requiredScope, requiredScopes };
