import type { Db } from '../domain/db/client.ts';

/** The spec's cron batch; workers may claim more per round (the function allows 1..1000). */
export const CRON_BATCH_SIZE = 50;

export interface ClaimedDelivery {
  delivery_id: string;
  delivery_company_id: string;
  webhook_id: string;
  webhook_company_id: string;
  webhook_url: string;
  secret_encrypted: string;
  webhook_disabled: boolean;
  livemode: boolean | null;
  event_id: string | null;
  event_type: string;
  payload: unknown;
  attempts: number;
}

/** One statement: pick due rows with SKIP LOCKED and mark them in_flight (claim_webhook_deliveries). */
export async function claimDeliveries(db: Db, batch: number, asOf: Date): Promise<ClaimedDelivery[]> {
  return db.$queryRaw<ClaimedDelivery[]>`SELECT * FROM claim_webhook_deliveries(${batch}::int, ${asOf}::timestamptz)`;
}
