import type { z } from 'zod';
import { DomainError, type ErrorCode } from '../domain/kernel/errors.ts';
import { API_VERSION } from '../domain/kernel/version.ts';
import { defaultPublicBaseUrl } from '../domain/kernel/config.ts';
import { eventExample } from '../domain/events/catalog.ts';
import { errorBody, type ErrorBody } from '../registry/error-catalog.ts';
import type { AuditMeta } from '../domain/audit/append.ts';
import type { ResponseMeta } from '../http/envelope.ts';
import { answersJson, requestContentType, isPaginated, isWrite, pathParamNames, type DescribedOperation } from './operation-traits.ts';

/**
 * The worked examples shown by the OpenAPI document and the reference docs: the registry's own
 * examples, wrapped the way the API really answers. One builder, so both print the same thing.
 */

/** Shaped like a real id from http/request-id.ts. */
export const SAMPLE_REQUEST_ID = 'req_Xk3q9Lr2VyB8nM1z';
const SAMPLE_API_KEY_ID = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const SAMPLE_AUDIT_ID = '0b7e4c1a-3d2f-4a6b-9c8d-7e5f4a3b2c1d';
const SAMPLE_TIME = '2026-11-21T10:00:00.000Z';

/** The request body example; none for non-JSON bodies (multipart has no worked example). */
export function requestBodyExample(op: DescribedOperation): unknown {
  if (requestContentType(op) !== 'application/json') return undefined;
  return op.examples.body;
}

/**
 * The success body example: `{ data, meta }` with a sample meta that has what this kind of
 * operation returns (pagination on cursor lists, audit on writes). None for 204 or binary bodies.
 */
export function responseExample(op: DescribedOperation): { data: unknown; meta: z.infer<typeof ResponseMeta> } | undefined {
  if (!op.output || !answersJson(op) || op.examples.response === undefined) return undefined;
  // The parsed value is what the schema says we send (defaults filled, transforms applied).
  const data: unknown = op.output.parse(op.examples.response);
  return { data, meta: sampleMeta(op, data) };
}

function sampleMeta(op: DescribedOperation, data: unknown): z.infer<typeof ResponseMeta> {
  const meta: z.infer<typeof ResponseMeta> = { request_id: SAMPLE_REQUEST_ID, api_version: API_VERSION };
  if (isPaginated(op)) meta.pagination = { next_cursor: null, has_more: false };
  if (isWrite(op)) meta.audit = sampleAudit(op, data);
  return meta;
}

function sampleAudit(op: DescribedOperation, data: unknown): AuditMeta {
  const dataId = (data as { id?: unknown } | null)?.id;
  const params = (op.examples.params ?? {}) as Record<string, unknown>;
  const lastParam = pathParamNames(op).at(-1);
  const targetId = typeof dataId === 'string' ? dataId : lastParam ? String(params[lastParam] ?? '') : '';
  return {
    id: SAMPLE_AUDIT_ID,
    action: op.id,
    actor: { type: 'api_key', api_key_id: SAMPLE_API_KEY_ID },
    target: targetId ? { type: op.auditTarget ?? op.group, id: targetId } : null,
    occurred_at: SAMPLE_TIME,
  };
}

/**
 * The base URL in examples that have no configured one (the committed reference docs): what a
 * fresh `npm start` with default settings serves at.
 */
export const SAMPLE_BASE_URL = defaultPublicBaseUrl('127.0.0.1', 3000);

/** The error body a code produces, through the same builder the API uses. */
export function errorExample(code: ErrorCode, publicBaseUrl: string): ErrorBody {
  const extra =
    code === 'INSUFFICIENT_SCOPE'
      ? { requiredScope: 'webhooks:manage' }
      : code === 'VALIDATION_ERROR'
        ? {
            message: 'body.name: Too small: expected string to have >=1 characters',
            details: [{ path: 'body.name', message: 'Too small: expected string to have >=1 characters' }],
          }
        : {};
  return errorBody(new DomainError(code, extra), SAMPLE_REQUEST_ID, publicBaseUrl);
}

/** A delivered event as the receiver gets it (DESIGN.md §6 "event payload"); the catalogue builds it. */
export { eventExample };
