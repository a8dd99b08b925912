import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';
import type { Db } from '../../domain/db/client.ts';
import type { OperationContext, Services } from '../../domain/context.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';

/** A binary answer through the real app, bytes intact (call() reads text). */
export async function download(
  app: Hono<AppEnv>,
  path: string,
  options: { key: string; accept?: string; acceptLanguage?: string },
): Promise<{ status: number; headers: Headers; bytes: Uint8Array; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key}` };
  if (options.accept) headers.accept = options.accept;
  if (options.acceptLanguage) headers['accept-language'] = options.acceptLanguage;
  const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
  const response = await app.request(path, { headers }, env as never);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: new TextDecoder().decode(bytes) };
}

/** Exact sums straight from SQL over committed lines: the yardstick every report total is held to. */
export async function sqlSums(
  db: Db,
  companyId: string,
  where: { from?: string; to: string; accountFrom?: string; accountTo?: string },
): Promise<{ debit: bigint; credit: bigint; lines: bigint }> {
  const [row] = await db.$queryRawUnsafe<{ debit: bigint; credit: bigint; lines: bigint }[]>(
    `SELECT coalesce(sum(l.debit), 0)::bigint AS debit, coalesce(sum(l.credit), 0)::bigint AS credit, count(*)::bigint AS lines
       FROM journal_lines l
       JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
       JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
      WHERE l.company_id = $1::uuid AND e.status = 'committed' AND e.date >= $2::date AND e.date <= $3::date
        AND a.number >= $4 AND a.number <= $5`,
    companyId,
    where.from ?? '1900-01-01',
    where.to,
    where.accountFrom ?? '1000',
    where.accountTo ?? '8999',
  );
  return row as { debit: bigint; credit: bigint; lines: bigint };
}

/** A context acting with every scope, for tests that call domain functions directly. */
export const actingContext = (services: Services): OperationContext => ({
  services,
  actor: { apiKeyId: randomUUID(), apiKeyName: 'test', userId: randomUUID(), companyId: null, scopes: [...SCOPES], mode: 'test', rateLimitPerMinute: 600 },
  requestId: 'test',
  db: services.database.prisma,
  inTransaction: false,
  dryRun: false,
});
