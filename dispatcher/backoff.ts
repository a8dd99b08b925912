/**
 * Retry schedule for webhook deliveries.
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

/**
 * Delay before the next attempt, given how many attempts have already been made (and failed).
 * Returns null once MAX_ATTEMPTS attempts have been made: the delivery is exhausted.
 * Throws on attemptsMade < 1 or non-integers: that is a caller bug, not a schedule question.
 */
export function nextAttemptDelayMs(attemptsMade: number): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`nextAttemptDelayMs: attemptsMade must be an integer >= 1, got ${attemptsMade}`);
  }
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  return RETRY_DELAYS_MS[attemptsMade - 1] ?? null;
}
