import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { readRows, type OperationContext } from '../context.ts';

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

/**
 * One audit row, its id made here. Through the bare driver (readRows: one round trip, prepared
 * once per connection): every write sends it inside its transaction, a journal-entry commit while
 * its series counter is still locked.
 */
export const INSERT_AUDIT = `
  INSERT INTO audit_log (id, action, actor_type, api_key_id, user_id, company_id, target_type, target_id, request_id, details, occurred_at)
  VALUES ($1::uuid, $2::text, $3::text, $4::uuid, $5::uuid, $6::uuid, $7::text, $8::text, $9::text, $10::jsonb, $11::timestamptz)`;

/** Appends to the append-only audit log inside the caller's transaction. */
export async function appendAudit(ctx: OperationContext, entry: AuditEntry): Promise<AuditMeta> {
  const id = randomUUID();
  const actorType = ctx.actor ? 'api_key' : 'system';
  const apiKeyId = ctx.actor?.apiKeyId ?? null;
  const occurredAt = ctx.services.now();
  await readRows(ctx, INSERT_AUDIT, [
    id,
    entry.action,
    actorType,
    apiKeyId,
    ctx.actor?.userId ?? null,
    entry.companyId,
    entry.target?.type ?? null,
    entry.target?.id ?? null,
    ctx.requestId,
    JSON.stringify(entry.details ?? {}),
    occurredAt,
  ]);
  return { id, action: entry.action, actor: { type: actorType, api_key_id: apiKeyId }, target: entry.target, occurred_at: occurredAt.toISOString() };
}
