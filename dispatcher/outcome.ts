/**
 * Decides what happens to a delivery after one attempt (svix-style). Pure: the caller
 * persists the outcome and, when asked, disables the webhook.
 */
import { nextAttemptDelayMs } from './backoff.ts';

export type AttemptResult =
  | { kind: 'response'; status: number } // receiver answered (any status, incl. 3xx redirects which are never followed)
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

export const EXHAUSTED_REASON_PREFIX = 'attempts_exhausted:';

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

export function decideOutcome(result: AttemptResult, attemptsMadeIncludingThis: number, now: Date): Outcome {
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
  const delayMs = nextAttemptDelayMs(attemptsMadeIncludingThis);
  if (delayMs === null) {
    // Exhaustion does not disable the webhook: the endpoint may just have had a long outage.
    return { status: 'dead', reason: `${EXHAUSTED_REASON_PREFIX}${reason}`, disableWebhook: null };
  }
  return { status: 'failed', nextAttemptAt: new Date(now.getTime() + delayMs), reason };
}
