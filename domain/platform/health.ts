import { z } from 'zod';
import type { OperationContext } from '../kernel/context.ts';
import { API_VERSION } from '../kernel/version.ts';

export const Health = z.object({
  status: z.literal('ok'),
  api_version: z.string(),
  database: z.object({ kind: z.enum(['pglite', 'postgres']), time: z.iso.datetime() }),
});
export type Health = z.infer<typeof Health>;

/** Proves the database answers, through whatever identity the context carries (api_anon on the public route). */
export async function checkHealth(ctx: OperationContext): Promise<Health> {
  const rows = await ctx.db.$queryRaw<{ database_time: Date }[]>`SELECT database_time FROM service_health()`;
  return {
    status: 'ok',
    api_version: API_VERSION,
    database: { kind: ctx.services.database.kind, time: (rows[0]?.database_time ?? new Date(0)).toISOString() },
  };
}
