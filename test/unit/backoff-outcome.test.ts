import { describe, expect, it } from 'vitest';
import { JITTER_FRACTION, MAX_ATTEMPTS, MAX_RETRY_DELAY_MS, RETRY_DELAYS_MS, nextAttemptDelayMs, withJitter } from '../../dispatcher/backoff.ts';
import { decideOutcome, parseRetryAfter, type AttemptResult } from '../../dispatcher/outcome.ts';

/** A random source pinned to the middle of the jitter band: exactly the schedule's step. */
const NO_JITTER = () => 0.5;

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = new Date('2025-03-01T12:00:00.000Z');
const plus = (ms: number) => new Date(NOW.getTime() + ms);

describe('backoff schedule', () => {
  it('is 1m, 5m, 30m, 2h, 12h, 24h, 48h with 8 attempts in total', () => {
    expect(RETRY_DELAYS_MS).toEqual([1 * MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 12 * HOUR, 24 * HOUR, 48 * HOUR]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBe(86.6 * HOUR);
    expect(Object.isFrozen(RETRY_DELAYS_MS)).toBe(true);
  });

  it.each([
    [1, 1 * MIN],
    [2, 5 * MIN],
    [3, 30 * MIN],
    [4, 2 * HOUR],
    [5, 12 * HOUR],
    [6, 24 * HOUR],
    [7, 48 * HOUR],
    [8, null],
    [9, null],
    [100, null],
  ])('after %i failed attempt(s) the next delay is %s', (attempts, expected) => {
    expect(nextAttemptDelayMs(attempts)).toBe(expected);
  });

  it('rejects nonsensical attempt counts', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => nextAttemptDelayMs(bad)).toThrow(RangeError);
    }
  });
});

describe('decideOutcome', () => {
  it.each([200, 201, 202, 204, 299])('HTTP %i is delivered', (status) => {
    expect(decideOutcome({ kind: 'response', status }, 1, NOW, NO_JITTER)).toEqual({ status: 'delivered' });
  });

  it('a 2xx on the last attempt is still delivered', () => {
    expect(decideOutcome({ kind: 'response', status: 200 }, MAX_ATTEMPTS, NOW, NO_JITTER)).toEqual({ status: 'delivered' });
  });

  it.each([301, 302, 304, 307, 308])('HTTP %i (redirect, not followed) is a retryable failure', (status) => {
    expect(decideOutcome({ kind: 'response', status }, 1, NOW, NO_JITTER)).toEqual({
      status: 'failed',
      nextAttemptAt: plus(1 * MIN),
      reason: `http_${status}`,
    });
  });

  it('HTTP 410 is dead and disables the webhook, even on the first attempt', () => {
    const dead = { status: 'dead', reason: 'http_410', disableWebhook: 'http_410' };
    expect(decideOutcome({ kind: 'response', status: 410 }, 1, NOW, NO_JITTER)).toEqual(dead);
    expect(decideOutcome({ kind: 'response', status: 410 }, MAX_ATTEMPTS, NOW, NO_JITTER)).toEqual(dead);
  });

  it('an unsafe URL is dead and disables the webhook with the class', () => {
    expect(decideOutcome({ kind: 'url_unsafe', unsafeClass: 'private_ip' }, 3, NOW, NO_JITTER)).toEqual({
      status: 'dead',
      reason: 'url_unsafe:private_ip',
      disableWebhook: 'url_unsafe:private_ip',
    });
  });

  it('a cross-tenant mismatch is dead without disabling the webhook', () => {
    expect(decideOutcome({ kind: 'cross_tenant_mismatch' }, 1, NOW, NO_JITTER)).toEqual({
      status: 'dead',
      reason: 'cross_tenant_mismatch',
      disableWebhook: null,
    });
  });

  const retryable: Array<[AttemptResult, string]> = [
    [{ kind: 'response', status: 400 }, 'http_400'],
    [{ kind: 'response', status: 404 }, 'http_404'],
    [{ kind: 'response', status: 429 }, 'http_429'],
    [{ kind: 'response', status: 499 }, 'http_499'],
    [{ kind: 'response', status: 500 }, 'http_500'],
    [{ kind: 'response', status: 503 }, 'http_503'],
    [{ kind: 'response', status: 302 }, 'http_302'],
    [{ kind: 'timeout' }, 'timeout'],
    [{ kind: 'transport_error', errorClass: 'ECONNREFUSED' }, 'transport_error:ECONNREFUSED'],
    [{ kind: 'transport_error', errorClass: 'tls_error' }, 'transport_error:tls_error'],
  ];

  it.each(retryable)('%j fails through the whole schedule, then is dead', (result, reason) => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect(decideOutcome(result, attempt, NOW, NO_JITTER)).toEqual({
        status: 'failed',
        nextAttemptAt: plus(RETRY_DELAYS_MS[attempt - 1]!),
        reason,
      });
    }
    expect(decideOutcome(result, MAX_ATTEMPTS, NOW, NO_JITTER)).toEqual({
      status: 'dead',
      reason: `attempts_exhausted:${reason}`,
      disableWebhook: null,
    });
  });

  it('computes nextAttemptAt from the injected now', () => {
    const other = new Date('2030-01-01T00:00:00.000Z');
    const outcome = decideOutcome({ kind: 'response', status: 500 }, 4, other, NO_JITTER);
    expect(outcome).toEqual({
      status: 'failed',
      nextAttemptAt: new Date('2030-01-01T02:00:00.000Z'),
      reason: 'http_500',
    });
    // The input date is not mutated.
    expect(other.toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });
});

describe('jitter', () => {
  it('moves each step by at most ±10 %, across the whole band', () => {
    expect(JITTER_FRACTION).toBe(0.1);
    for (const step of RETRY_DELAYS_MS) {
      expect(withJitter(step, () => 0)).toBe(Math.round(step * 0.9));
      expect(withJitter(step, () => 0.5)).toBe(step);
      expect(withJitter(step, () => 0.999_999)).toBeCloseTo(step * 1.1, -2);
      expect(withJitter(step, () => 0.25)).toBe(Math.round(step * 0.95));
    }
  });

  it('keeps a misbehaving random source inside the band', () => {
    expect(withJitter(60_000, () => -5)).toBe(54_000);
    expect(withJitter(60_000, () => 7)).toBe(66_000);
  });

  it('is applied by decideOutcome to every retry step', () => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const step = RETRY_DELAYS_MS[attempt - 1]!;
      const early = decideOutcome({ kind: 'response', status: 500 }, attempt, NOW, () => 0);
      const late = decideOutcome({ kind: 'response', status: 500 }, attempt, NOW, () => 0.999_999);
      expect(early).toMatchObject({ status: 'failed', nextAttemptAt: plus(Math.round(step * 0.9)) });
      expect(late.status === 'failed' && late.nextAttemptAt.getTime() - NOW.getTime()).toBeGreaterThan(step * 1.09);
    }
  });
});

describe('Retry-After', () => {
  it('parses delay-seconds and IMF-fixdate HTTP-dates; anything else is ignored', () => {
    expect(parseRetryAfter('3600', NOW)).toBe(HOUR);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(2 * MIN);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('Sat, 01 Mar 2025 13:30:00 GMT', NOW)).toBe(90 * MIN);
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', NOW)).toBe(0); // in the past: now
    for (const bad of [null, undefined, '', '-5', '1.5', 'soon', '2025-03-01T13:00:00Z', '99999999999999']) {
      expect(parseRetryAfter(bad, NOW), String(bad)).toBeNull();
    }
  });

  it('on 429 and 503 waits for the longer of the backoff step and Retry-After, capped at 48 h', () => {
    for (const status of [429, 503]) {
      expect(decideOutcome({ kind: 'response', status, retryAfter: '3600' }, 1, NOW, NO_JITTER)).toEqual({
        status: 'failed',
        nextAttemptAt: plus(HOUR),
        reason: `http_${status}`,
      });
      // A shorter Retry-After never shortens the schedule.
      expect(decideOutcome({ kind: 'response', status, retryAfter: '10' }, 4, NOW, NO_JITTER)).toMatchObject({ nextAttemptAt: plus(2 * HOUR) });
      // A week is cut to the schedule's longest step.
      expect(decideOutcome({ kind: 'response', status, retryAfter: String(7 * 24 * 3600) }, 1, NOW, NO_JITTER)).toMatchObject({
        nextAttemptAt: plus(MAX_RETRY_DELAY_MS),
      });
      expect(MAX_RETRY_DELAY_MS).toBe(48 * HOUR);
    }
  });

  it('is ignored on other statuses and cannot revive an exhausted delivery', () => {
    expect(decideOutcome({ kind: 'response', status: 500, retryAfter: '3600' }, 1, NOW, NO_JITTER)).toMatchObject({ nextAttemptAt: plus(MIN) });
    expect(decideOutcome({ kind: 'response', status: 429, retryAfter: '3600' }, MAX_ATTEMPTS, NOW, NO_JITTER)).toEqual({
      status: 'dead',
      reason: 'attempts_exhausted:http_429',
      disableWebhook: null,
    });
  });
});
