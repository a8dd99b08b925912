/**
 * Facts about delivery signatures that the dispatcher (which signs) and discovery (which documents
 * them) both state: defined here, below both, so neither surface imports the other.
 */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Five minutes either side of the receiver's clock, as Stripe defaults. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Standard Webhooks (standardwebhooks.com), sent beside ours: the event id, stable across retries. */
export const STANDARD_ID_HEADER = 'webhook-id';
/** Standard Webhooks: unix seconds, the same `t` as in X-Service-Signature. */
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, space-separated, one per secret. */
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';
/** How Standard Webhooks libraries take a secret: this prefix + base64 of the secret string's bytes. */
export const STANDARD_SECRET_PREFIX = 'whsec_';
