/**
 * The retry schedule of webhook deliveries: facts the dispatcher (which applies them) and
 * discovery (which documents them) both state, defined here below both.
 *
 * Delays are applied after successive failures: 1 min, 5 min, 30 min, 2 h, 12 h, 24 h, 48 h.
 * That is 7 retries, so 8 attempts in total. The delays sum to 86.6 h; the spec loosely
 * calls this "about 72 hours" of retrying — the table below is the source of truth.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  1 * MINUTE_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  12 * HOUR_MS,
  24 * HOUR_MS,
  48 * HOUR_MS,
]);

/** The first attempt plus one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The schedule's longest step (48 h): a receiver's Retry-After never pushes an attempt further out. */
export const MAX_RETRY_DELAY_MS = Math.max(...RETRY_DELAYS_MS);

/**
 * ±10 % on each step, so deliveries that failed together (a receiver's outage) do not all come
 * back in one synchronised wave when it recovers.
 */
export const JITTER_FRACTION = 0.1;

/** Spec "Limits": outbound request timeout. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** The dead reason of a delivery whose attempts ran out is this prefix plus its last failure. */
export const EXHAUSTED_REASON_PREFIX = 'attempts_exhausted:';
