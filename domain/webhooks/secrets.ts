import { randomBytes } from 'node:crypto';

const SECRET_BYTES = 32; // 256 bits (spec Webhook.secret)

/** A new signing secret as 64 lowercase hex characters. */
export const generateWebhookSecret = (): string => randomBytes(SECRET_BYTES).toString('hex');

/** What a dry run shows instead of a secret: no subscription exists, so no secret does either. */
export const DRY_RUN_SECRET = '0'.repeat(SECRET_BYTES * 2);
