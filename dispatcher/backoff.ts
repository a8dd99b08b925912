/**
 * Backoff for webhook deliveries: the schedule (domain/webhooks/retry-schedule.ts, where the
 * docs read it too) applied with jitter.
 */

import { JITTER_FRACTION, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../domain/webhooks/retry-schedule.ts';

export { JITTER_FRACTION, MAX_ATTEMPTS, MAX_RETRY_DELAY_MS, RETRY_DELAYS_MS } from '../domain/webhooks/retry-schedule.ts';

/** A source of uniform numbers in [0, 1), injectable so tests can pin the jitter. */
export type Random = () => number;

/** `stepMs` moved by up to ±JITTER_FRACTION, uniformly: random 0 gives -10 %, 0.5 none, →1 gives +10 %. */
export function withJitter(stepMs: number, random: Random = Math.random): number {
  const unit = Math.min(Math.max(random(), 0), 1); // a misbehaving source cannot leave the band
  return Math.round(stepMs * (1 + JITTER_FRACTION * (2 * unit - 1)));
}

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
