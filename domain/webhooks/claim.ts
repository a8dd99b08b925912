import type { Db } from '../db/client.ts';

/** The spec's cron batch; workers may claim more per round (the function allows 1..1000). */
export const CRON_BATCH_SIZE = 50;

/** One claimed row as claim_webhook_deliveries returns it. The webhook columns are null when it vanished. */
export interface ClaimedDelivery {
  delivery_id: string;
  delivery_company_id: string;
  webhook_id: string;
  webhook_company_id: string | null;
  webhook_url: string | null;
  secret_encrypted: string | null;
  /** Set only while a rotation's overlap lasts. */
  previous_secret_encrypted: string | null;
  webhook_disabled: boolean | null;
  /** The webhook has a failure record (delivery health) that a success would clear. */
  webhook_failing: boolean | null;
  livemode: boolean | null;
  event_id: string | null;
  event_type: string;
  payload: unknown;
  attempts: number;
}

/**
 * One statement: pick due rows round-robin across companies with SKIP LOCKED and mark them
 * in_flight (claim_webhook_deliveries, prisma/migrations/…_fair_claim).
 */
export async function claimDeliveries(db: Db, batch: number, asOf: Date): Promise<ClaimedDelivery[]> {
  return db.$queryRaw<ClaimedDelivery[]>`SELECT * FROM claim_webhook_deliveries(${batch}::int, ${asOf}::timestamptz)`;
}
