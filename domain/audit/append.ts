import { z } from 'zod';
import type { OperationContext } from '../context.ts';

/** Who wrote an audit entry (audit_log.actor_type). */
export const ACTOR_TYPES = ['api_key', 'system', 'cli'] as const;

/** The `meta.audit` block returned by every write. */
export const AuditMeta = z.object({
  id: z.uuid().describe('Audit log entry id.'),
  action: z.string().describe('Operation id that wrote, e.g. updateCompany.'),
  actor: z.object({ type: z.enum(ACTOR_TYPES), api_key_id: z.uuid().nullable() }),
  target: z.object({ type: z.string(), id: z.string() }).nullable(),
  occurred_at: z.iso.datetime(),
});
export type AuditMeta = z.infer<typeof AuditMeta>;

export interface AuditEntry {
  action: string;
  companyId: string | null;
  target: { type: string; id: string } | null;
  details?: Record<string, unknown>;
}

/** Appends to the append-only audit log inside the caller's transaction. */
export async function appendAudit(ctx: OperationContext, entry: AuditEntry): Promise<AuditMeta> {
  const row = await ctx.db.auditLog.create({
    data: {
      action: entry.action,
      actorType: ctx.actor ? 'api_key' : 'system',
      apiKeyId: ctx.actor?.apiKeyId ?? null,
      userId: ctx.actor?.userId ?? null,
      companyId: entry.companyId,
      targetType: entry.target?.type ?? null,
      targetId: entry.target?.id ?? null,
      requestId: ctx.requestId,
      details: (entry.details ?? {}) as object,
      occurredAt: ctx.services.now(),
    },
  });
  return {
    id: row.id,
    action: row.action,
    actor: { type: ctx.actor ? 'api_key' : 'system', api_key_id: row.apiKeyId },
    target: entry.target,
    occurred_at: row.occurredAt.toISOString(),
  };
}
