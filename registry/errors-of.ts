import { ERROR_CODES, type ErrorCode } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG } from './error-catalog.ts';
import { isPublic, isTenantScoped, requiredScope, type Operation } from './define-operation.ts';

const PATH_PARAMETER = /\{\w+\}/;

/** What errorsOf reads of an operation: its traits and its declared errors, never its handler. */
export type ErrorTraits = Pick<Operation, 'auth' | 'path' | 'input' | 'idempotencyKey' | 'errors' | 'produces' | 'database'>;

/**
 * The errors the shared pipeline itself answers for an operation, derived from its traits the way
 * pipeline/invoke.ts and the HTTP surface produce them: authentication (401, and 429 from the
 * per-key rate limit), scope (403), an id in the path (404: a company the key cannot reach answers
 * exactly as an unknown one, and any other path id can be unknown), input (400 always — unknown or malformed parameters, a dry run where none is
 * supported — and 413/415 for a body), idempotency (400 when a key is required, 409/422 whenever
 * one is taken), content negotiation (406 where an operation offers binary representations), the
 * catalogue's 500, and 503 wherever the database is used (an authenticated call admits its key
 * there even when its handler needs no database).
 */
export function pipelineErrors(op: ErrorTraits): ErrorCode[] {
  const codes: ErrorCode[] = ['VALIDATION_ERROR'];
  if (!isPublic(op)) codes.push('UNAUTHENTICATED', 'RATE_LIMITED');
  if (requiredScope(op)) codes.push('INSUFFICIENT_SCOPE');
  if (isTenantScoped(op) || PATH_PARAMETER.test(op.path)) codes.push('NOT_FOUND');
  if (op.input.body) codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if ((op.produces?.length ?? 0) > 0) codes.push('NOT_ACCEPTABLE');
  if (op.idempotencyKey === 'required') codes.push('IDEMPOTENCY_KEY_REQUIRED');
  if (op.idempotencyKey !== 'none') codes.push('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED');
  codes.push('INTERNAL_ERROR');
  if (!isPublic(op) || op.database !== 'none') codes.push('SERVICE_UNAVAILABLE');
  return codes;
}

const catalogueOrder = (code: ErrorCode): number => ERROR_CODES.indexOf(code);

/**
 * Every error an operation can answer with: the pipeline's own (from its traits) plus the domain
 * errors its declaration lists in `errors`, once each, ordered by status. OpenAPI, the reference
 * docs and the skills read this one list, so none of them keeps its own.
 */
export function errorsOf(op: ErrorTraits): ErrorCode[] {
  const codes = new Set<ErrorCode>([...pipelineErrors(op), ...(op.errors ?? [])]);
  return [...codes].sort((a, b) => ERROR_CATALOG[a].status - ERROR_CATALOG[b].status || catalogueOrder(a) - catalogueOrder(b));
}

/** errorsOf grouped by HTTP status, in status order: one OpenAPI response per status. */
export function errorsByStatus(op: ErrorTraits): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(op)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}
