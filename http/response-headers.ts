/**
 * Names of the headers our responses carry besides the security set, said once: the surfaces send
 * them, openapi.json and the reference docs document them, CORS lets a browser read them.
 */

/** Identifies the request; equals `meta.request_id` or `error.request_id`. */
export const REQUEST_ID_HEADER = 'X-Request-Id';
/** The API version that answered. */
export const SERVICE_VERSION_HEADER = 'Service-Version';
/** `true` on an answer replayed for a repeated Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
