/**
 * Decides what happens to a delivery after one attempt (svix-style). Pure: the caller
 * persists the outcome and, when asked, disables the webhook.
 */
import { MAX_RETRY_DELAY_MS, nextAttemptDelayMs, withJitter, type Random } from './backoff.ts';
import { EXHAUSTED_REASON_PREFIX } from '../domain/webhooks/retry-schedule.ts';

export type AttemptResult =
  // The receiver answered (any status, incl. 3xx redirects, which are never followed), with its
  // Retry-After header when it sent one.
  | { kind: 'response'; status: number; retryAfter?: string | null }
  | { kind: 'timeout' }
  | { kind: 'transport_error'; errorClass: string } // e.g. 'ECONNREFUSED', 'tls_error'
  | { kind: 'url_unsafe'; unsafeClass: string }
  | { kind: 'cross_tenant_mismatch' };

export type DisableReason = null | 'http_410' | `url_unsafe:${string}`;

export type Outcome =
  | { status: 'delivered' }
  | { status: 'failed'; nextAttemptAt: Date; reason: string }
  | { status: 'dead'; reason: string; disableWebhook: DisableReason };

/** 410 Gone is the receiver explicitly telling us the endpoint no longer exists. */
const HTTP_GONE = 410;
const HTTP_SUCCESS_MIN = 200;
const HTTP_SUCCESS_MAX = 299;

/** Answers whose Retry-After we honour: "slow down" (429) and "come back later" (503). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** RFC 9110's preferred HTTP-date (IMF-fixdate), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A Retry-After value (delay-seconds or an HTTP-date) as milliseconds from `now`; null when it is
 * absent or unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim() ?? '';
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  if (!IMF_FIXDATE.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * Milliseconds until the next attempt: the backoff step with jitter, or the receiver's Retry-After
 * on a 429/503 when that is longer, capped at the schedule's longest step.
 */
function retryDelayMs(result: AttemptResult, stepMs: number, now: Date, random: Random): number {
  const backoff = withJitter(stepMs, random);
  if (result.kind !== 'response' || !RETRY_AFTER_STATUSES.has(result.status)) return backoff;
  const asked = parseRetryAfter(result.retryAfter, now);
  return asked === null ? backoff : Math.max(backoff, Math.min(asked, MAX_RETRY_DELAY_MS));
}

function isSuccess(status: number): boolean {
  return Number.isInteger(status) && status >= HTTP_SUCCESS_MIN && status <= HTTP_SUCCESS_MAX;
}

/** The reason recorded for a retryable failure. */
function retryableReason(result: AttemptResult): string {
  switch (result.kind) {
    case 'response':
      return `http_${result.status}`;
    case 'timeout':
      return 'timeout';
    case 'transport_error':
      return `transport_error:${result.errorClass}`;
    default:
      // Terminal kinds are handled before this is called.
      throw new Error(`unreachable: ${result.kind} is not retryable`);
  }
}

export function decideOutcome(result: AttemptResult, attemptsMadeIncludingThis: number, now: Date, random: Random = Math.random): Outcome {
  // Terminal results win regardless of how many attempts remain: retrying cannot help.
  switch (result.kind) {
    case 'response':
      if (isSuccess(result.status)) return { status: 'delivered' };
      if (result.status === HTTP_GONE) {
        return { status: 'dead', reason: 'http_410', disableWebhook: 'http_410' };
      }
      break; // any other status, incl. 3xx (redirects are never followed), is retryable
    case 'url_unsafe': {
      // The URL resolves somewhere we refuse to call (e.g. private network): stop using it.
      const reason = `url_unsafe:${result.unsafeClass}` as const;
      return { status: 'dead', reason, disableWebhook: reason };
    }
    case 'cross_tenant_mismatch':
      // A bug or tampering on our side, not the receiver's fault: kill this delivery, keep the webhook.
      return { status: 'dead', reason: 'cross_tenant_mismatch', disableWebhook: null };
    case 'timeout':
    case 'transport_error':
      break;
  }

  const reason = retryableReason(result);
  const stepMs = nextAttemptDelayMs(attemptsMadeIncludingThis);
  if (stepMs === null) {
    // Exhaustion alone does not disable the webhook (the endpoint may just have had a long
    // outage); the delivery-health rules (consecutive_failures) decide that.
    return { status: 'dead', reason: `${EXHAUSTED_REASON_PREFIX}${reason}`, disableWebhook: null };
  }
  return { status: 'failed', nextAttemptAt: new Date(now.getTime() + retryDelayMs(result, stepMs, now, random)), reason };
}
