import { z } from 'zod';
import type { OperationContext } from '../../context.ts';
import { requireScope, withTransaction } from '../../context.ts';
import { DomainError } from '../../kernel/errors.ts';
import { DELIVERY_CHANNEL } from '../../events/emit.ts';
import { DELIVERY_STATUSES } from '../../webhooks/schemas.ts';
import { findWebhook, requirePayrollScopeFor, webhookNotFound } from '../../webhooks/subscriptions.ts';
import type { Job } from '../runner.ts';
import { recoverWebhookDeliveriesKind } from '../kinds/recover-webhook-deliveries.ts';

/** Sources re-enqueued per transaction (and per checkpoint). */
export const RECOVER_BATCH = 500;

/** The delivery statuses a recovery may send again: the given-up ones and those still being retried. */
export const RecoverableStatus = z.enum(DELIVERY_STATUSES).extract(['dead', 'failed']);

export const RecoverInput = z.object({
  webhook_id: z.uuid(),
  since: z.iso.datetime(),
  until: z.iso.datetime(),
  statuses: z.array(RecoverableStatus).min(1),
});
export type RecoverInput = z.infer<typeof RecoverInput>;

/** The checks the queue call makes before accepting: the webhook exists, is enabled, and the key may see its events. */
export async function checkRecoverable(ctx: OperationContext, companyId: string, webhookId: string): Promise<void> {
  requireScope(ctx, recoverWebhookDeliveriesKind.scope);
  const webhook = await findWebhook(ctx, companyId, webhookId);
  if (!webhook) throw webhookNotFound();
  requirePayrollScopeFor(ctx, webhook.eventType);
  if (webhook.disabledAt) {
    throw new DomainError('VALIDATION_ERROR', {
      message: 'The webhook is disabled; enable it (PATCH active: true) before recovering its deliveries.',
      details: [{ path: 'webhook_id', message: 'disabled' }],
    });
  }
}

const Checkpoint = z.object({ at: z.string(), id: z.uuid(), recovered: z.number().int() }).nullable();

/**
 * Re-enqueues, as fresh pending deliveries (retry_of = the source), the dead or failed deliveries
 * of one webhook created in [since, until), oldest first, in batches. Each batch and its
 * checkpoint commit together, so a rerun after a crash continues after the last committed batch
 * and no source is re-enqueued twice.
 */
export async function recoverDeliveriesJob(job: Job): Promise<Record<string, unknown>> {
  const input = RecoverInput.parse(job.input);
  const start = Checkpoint.parse(job.checkpoint ?? null);
  const db = job.ctx.services.database.prisma;
  const [{ total }] = (await db.$queryRaw<{ total: bigint }[]>`
    SELECT count(*)::bigint AS total FROM webhook_deliveries
     WHERE company_id = ${job.companyId}::uuid AND webhook_id = ${input.webhook_id}::uuid AND status = ANY(${input.statuses}::text[])
       AND created_at >= ${input.since}::timestamptz AND created_at < ${input.until}::timestamptz`) as [{ total: bigint }];
  let after = start;
  let recovered = start?.recovered ?? 0;
  for (;;) {
    const batch = await withTransaction(job.ctx, async (tx) => {
      const webhook = await tx.db.webhook.findFirst({ where: { companyId: job.companyId, id: input.webhook_id }, select: { disabledAt: true } });
      if (!webhook) throw webhookNotFound();
      if (webhook.disabledAt) throw new DomainError('VALIDATION_ERROR', { message: 'The webhook was disabled while recovering its deliveries.' });
      // The next batch of sources in (created_at, id) order, then one insert of their copies.
      const rows = await tx.db.$queryRaw<{ id: string; at: string }[]>`
        SELECT s.id, to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
          FROM webhook_deliveries s
         WHERE s.company_id = ${job.companyId}::uuid AND s.webhook_id = ${input.webhook_id}::uuid
           AND s.status = ANY(${input.statuses}::text[])
           AND s.created_at >= ${input.since}::timestamptz AND s.created_at < ${input.until}::timestamptz
           AND (${after?.at ?? null}::timestamptz IS NULL OR (s.created_at, s.id) > (${after?.at ?? null}::timestamptz, ${after?.id ?? null}::uuid))
         ORDER BY s.created_at, s.id
         LIMIT ${RECOVER_BATCH}`;
      if (rows.length === 0) return 0;
      await tx.db.$executeRaw`
        INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, event_type, payload, next_attempt_at, retry_of)
        SELECT d.webhook_id, d.company_id, d.event_id, d.event_type, d.payload, now(), d.id
          FROM webhook_deliveries d
         WHERE d.company_id = ${job.companyId}::uuid AND d.id = ANY(${rows.map((r) => r.id)}::uuid[])`;
      const last = rows.at(-1) as { id: string; at: string };
      recovered += rows.length;
      after = { at: last.at, id: last.id, recovered };
      await tx.db.$executeRaw`SELECT pg_notify(${DELIVERY_CHANNEL}, '')`;
      const progress = Number(total) === 0 ? 100 : (recovered / Number(total)) * 100;
      await job.checkpointIn(tx, Math.min(99, progress), `${recovered} of ${total} deliveries re-enqueued`, after);
      return rows.length;
    });
    if (batch < RECOVER_BATCH) break;
  }
  return { webhook_id: input.webhook_id, recovered };
}
