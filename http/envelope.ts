import { z } from 'zod';
import { API_VERSION } from '../domain/kernel/version.ts';
import { AuditMeta } from '../domain/audit/append.ts';
import { PaginationMeta } from '../domain/kernel/pagination.ts';
import type { InvocationMeta } from '../pipeline/invoke.ts';
import { PartialExpansion } from '../pipeline/expand.ts';

/** `meta` of every success body (spec "Response envelope"). */
export const ResponseMeta = z.object({
  request_id: z.string(),
  api_version: z.string(),
  pagination: PaginationMeta.optional(),
  audit: AuditMeta.optional(),
  dry_run: z.literal(true).optional(),
  would_emit: z.array(z.string()).optional().describe('On a dry run: the event types the write would have emitted, in order.'),
  partial_expansions: z.array(PartialExpansion).optional().describe('Expansions asked for but left out of some items, and why.'),
});

export const envelopeSchema = <T extends z.ZodType>(data: T) => z.object({ data, meta: ResponseMeta });

export const envelope = (data: unknown, requestId: string, meta: InvocationMeta = {}) => ({
  data,
  meta: { request_id: requestId, api_version: API_VERSION, ...meta },
});
