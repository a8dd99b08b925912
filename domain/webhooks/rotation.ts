import type { Db } from '../db/client.ts';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { toWebhook } from './mappers.ts';
import { DRY_RUN_SECRET, generateWebhookSecret } from './secrets.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, type RotatedWebhook, type RotateWebhookSecretBody, type Webhook } from './schemas.ts';
import { lockWebhook } from './subscriptions.ts';

/**
 * Secret rotation without downtime (as Stripe's "roll secret"): the new secret signs every
 * delivery at once, and the previous one keeps signing beside it until the overlap ends, so a
 * receiver can switch whenever it likes within the overlap. Only two secrets exist at a time:
 * rotating again during an overlap retires the older previous secret.
 */
export async function rotateWebhookSecret(ctx: OperationContext, companyId: string, id: string, body: RotateWebhookSecretBody): Promise<RotatedWebhook> {
  requireScope(ctx, 'webhooks:manage');
  const overlapSeconds = body?.overlap_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
  return withTransaction(ctx, async (tx) => {
    const current = await lockWebhook(tx, companyId, id);
    const secret = generateWebhookSecret();
    const now = tx.services.now();
    const overlapping = overlapSeconds > 0;
    const row = await tx.db.webhook.update({
      where: { id: current.id },
      data: {
        secretEncrypted: tx.services.secretBox.encrypt(secret),
        previousSecretEncrypted: overlapping ? current.secretEncrypted : null,
        previousSecretExpiresAt: overlapping ? new Date(now.getTime() + overlapSeconds * 1000) : null,
        updatedAt: now,
      },
    });
    return { ...toWebhook(row), secret: tx.dryRun ? DRY_RUN_SECRET : secret };
  });
}

/** Ends a rotation's overlap now: the previous secret is erased and signs nothing more. */
export async function expirePreviousWebhookSecret(ctx: OperationContext, companyId: string, id: string): Promise<Webhook> {
  requireScope(ctx, 'webhooks:manage');
  return withTransaction(ctx, async (tx) => {
    const current = await lockWebhook(tx, companyId, id);
    if (current.previousSecretEncrypted === null) return toWebhook(current);
    const row = await tx.db.webhook.update({
      where: { id: current.id },
      data: { previousSecretEncrypted: null, previousSecretExpiresAt: null, updatedAt: tx.services.now() },
    });
    return toWebhook(row);
  });
}

/**
 * Erases every previous secret whose overlap has ended (the dispatcher runs this beside stuck
 * recovery). Deliveries stop using a previous secret at its expiry whether or not this ran yet:
 * the claim only hands out one that is still valid.
 */
export async function erasePreviousSecretsDue(db: Db, now: Date): Promise<number> {
  return db.$executeRaw`
    UPDATE webhooks SET previous_secret_encrypted = NULL, previous_secret_expires_at = NULL
     WHERE previous_secret_encrypted IS NOT NULL AND previous_secret_expires_at <= ${now}`;
}
