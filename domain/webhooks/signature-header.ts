/**
 * Facts about delivery signatures that the dispatcher (which signs) and discovery (which documents
 * them) both state: defined here, below both, so neither surface imports the other.
 */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Five minutes either side of the receiver's clock, as Stripe defaults. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
