import { z } from 'zod';
import { readRows, type OperationContext } from '../context.ts';
import { API_VERSION } from '../kernel/version.ts';

export const Health = z.object({
  status: z.literal('ok'),
  api_version: z.string(),
  database: z.object({ kind: z.enum(['pglite', 'postgres']), time: z.iso.datetime() }),
  deliveries: z
    .object({
      due: z.number().int().nonnegative().describe('Webhook deliveries due now and not yet sent (every company).'),
      oldest_due_seconds: z.number().int().nonnegative().nullable().describe('How long the oldest of them has waited; null when none is due.'),
      waiting_for_key: z
        .number()
        .int()
        .nonnegative()
        .describe(
          "Webhook deliveries waiting because their webhook's secret cannot be decrypted with the server's ENCRYPTION_KEY (every company); they are never marked dead and go out once the key is right.",
        ),
      loop_in_process: z.boolean().describe('Whether this process runs a delivery loop (npm start does unless DISPATCHER_TIMER=false).'),
    })
    .describe('The delivery backlog: a growing one means no dispatcher is running, or receivers are failing.'),
});
export type Health = z.infer<typeof Health>;

/**
 * Proves the database answers and reports the delivery backlog, through whatever identity the
 * context carries (api_anon on the public route, which may call these functions and no more).
 * Through the bare driver only (the operation is declared `database: 'bare'`).
 */
export async function checkHealth(ctx: OperationContext): Promise<Health> {
  const now = ctx.services.now();
  const [probe] = await readRows<{ database_time: Date }>(ctx, 'SELECT database_time FROM service_health()', []);
  const [backlog] = await readRows<{ due: bigint; oldest_due_at: Date | null }>(ctx, 'SELECT due, oldest_due_at FROM delivery_backlog($1::timestamptz)', [
    now.toISOString(),
  ]);
  const [waiting] = await readRows<{ count: bigint }>(ctx, 'SELECT deliveries_waiting_for_key() AS count', []);
  const oldest = backlog?.oldest_due_at ?? null;
  return {
    status: 'ok',
    api_version: API_VERSION,
    database: { kind: ctx.services.database.kind, time: (probe?.database_time ?? new Date(0)).toISOString() },
    deliveries: {
      due: Number(backlog?.due ?? 0),
      oldest_due_seconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000)) : null,
      waiting_for_key: Number(waiting?.count ?? 0),
      loop_in_process: ctx.services.loops.delivery > 0,
    },
  };
}
