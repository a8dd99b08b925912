import type { Db } from '../../domain/db/client.ts';

/**
 * The plan of the claim function's own statement. EXPLAIN of `SELECT * FROM
 * claim_webhook_deliveries(…)` shows only "Function Scan", so this prepares the statement of the
 * function's body (from pg_proc) with its arguments as parameters and explains that: the same SQL
 * the claim runs.
 * Nothing is executed, so nothing is claimed.
 */
export async function explainClaim(db: Db, batch = 50): Promise<string> {
  const [row] = await db.$queryRawUnsafe<{ src: string }[]>(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'claim_webhook_deliveries'`);
  if (!row) throw new Error('claim_webhook_deliveries is not installed');
  // The function is PL/pgSQL: its statement is the RETURN QUERY.
  const query = /RETURN QUERY\s+([\s\S]*?);\s*END\s*$/.exec(row.src)?.[1];
  if (!query) throw new Error('claim_webhook_deliveries has no RETURN QUERY');
  const statement = query.replace(/\bbatch\b/g, '$1').replace(/\bas_of\b/g, '$2');
  const name = `claim_plan_${Math.floor(Math.random() * 1e9)}`;
  await db.$executeRawUnsafe(`PREPARE ${name}(integer, timestamptz) AS ${statement}`);
  try {
    const plan = await db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN EXECUTE ${name}(${Number(batch)}, now())`);
    return plan.map((line) => line['QUERY PLAN']).join('\n');
  } finally {
    await db.$executeRawUnsafe(`DEALLOCATE ${name}`);
  }
}
