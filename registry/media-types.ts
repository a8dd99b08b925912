import type { Operation } from './define-operation.ts';

/**
 * The representations an operation declares for its success response: the JSON envelope, or the
 * binary media types in `produces` (a report's PDF, an SIE file, a document). Choosing one for a
 * request is the pipeline's job (pipeline/negotiate.ts).
 */

export const JSON_MEDIA_TYPE = 'application/json';

/** `text/plain; charset=cp437` → `text/plain`: negotiation compares the type and subtype only. */
export const mediaEssence = (mediaType: string): string => (mediaType.split(';')[0] ?? '').trim().toLowerCase();

/**
 * What the operation can answer with, its default first: JSON when it has a JSON output, then
 * `produces` in order. A stored file (`binaryResponse`) answers in its own declared types instead
 * of JSON; its output schema is the file's metadata, which only MCP returns.
 */
export const offeredMediaTypes = (op: Pick<Operation, 'output' | 'produces' | 'binaryResponse'>): string[] => [
  ...(op.binaryResponse ? op.binaryResponse.contentTypes : op.output ? [JSON_MEDIA_TYPE] : []),
  ...(op.produces ?? []).map((representation) => representation.mediaType),
];
