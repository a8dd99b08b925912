/**
 * One delivery attempt: re-check the URL (resolving DNS once), POST the signed body to the
 * approved address, keep a bounded slice of the answer, and classify what happened.
 * Never throws: every failure becomes an AttemptResult the outcome logic understands.
 */
import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { undici } from './undici.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { checkWebhookUrl, type Resolver } from '../domain/webhooks/url-safety.ts';
import type { AttemptResult } from './outcome.ts';
import { DEFAULT_USER_AGENT, deliveryHeaders } from './delivery-headers.ts';
import { createTransport } from './transport.ts';
import { REQUEST_TIMEOUT_MS } from '../domain/webhooks/retry-schedule.ts';

/** Spec "Limits": the dispatcher keeps this many bytes of the response body. */
export const MAX_STORED_RESPONSE_BYTES = 4096;
export { DEFAULT_USER_AGENT, DELIVERY_ID_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER } from './delivery-headers.ts';

export interface SendRequest {
  deliveryId: string;
  eventId: string | null;
  eventType: string;
  url: string;
  secret: string;
  /** During a rotation's overlap: the previous secret, which signs beside the current one. */
  previousSecret?: string | null;
  /** Raw JSON, sent and signed byte for byte. */
  body: string;
}

export interface SendResult {
  result: AttemptResult;
  responseStatus: number | null;
  /** At most maxResponseBytes of UTF-8, cut at a character boundary; NUL characters removed. */
  responseBody: string | null;
  /** Lower-case names; repeated headers joined with ', '. */
  responseHeaders: Record<string, string> | null;
  startedAt: Date;
  finishedAt: Date;
  /**
   * Why the attempt did not get a clean response: 'timeout', an error code such as
   * 'ECONNREFUSED' or 'CERT_HAS_EXPIRED', 'url_unsafe:<class>', or 'unknown'. Null for a
   * response read in full (or up to the byte limit). A response whose body broke off after
   * the status line keeps kind 'response' and names the body error here.
   */
  errorClass: string | null;
}

export interface Sender {
  send(request: SendRequest): Promise<SendResult>;
  /** Closes pooled connections; later sends fail with errorClass 'sender_closed'. */
  close(): Promise<void>;
}

export interface SenderOptions {
  urlPolicy: { resolver: Resolver; allowedPrivateCidrs: readonly string[] };
  /** PEM CAs trusted on top of the default store (tests, private PKI). */
  extraCaCerts?: readonly string[];
  /** Whole-attempt budget: DNS, connect, TLS, headers and body. Default {@link REQUEST_TIMEOUT_MS}. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  now?: () => Date;
  userAgent?: string;
}

const TIMEOUT = 'timeout';
const UNKNOWN = 'unknown';
const SENDER_CLOSED = 'sender_closed';
/** Error codes we record must look like codes, so receivers cannot inject text into our rows. */
const ERROR_CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,63}$/;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_ABORTED', 'ETIMEDOUT', 'ABORT_ERR']);
/** How deep to follow `cause` chains when looking for a code. */
const MAX_CAUSE_DEPTH = 4;
const UTF8_CONTINUATION_MASK = 0xc0;
const UTF8_CONTINUATION_BITS = 0x80;

/** Classifies a thrown value as 'timeout', its error code, or 'unknown'. */
export function classifyError(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    // AbortSignal.timeout() rejects with a DOMException named TimeoutError.
    if (current.name === 'TimeoutError' || current.name === 'AbortError') return TIMEOUT;
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') {
      if (TIMEOUT_CODES.has(code)) return TIMEOUT;
      // undici's "other side closed": the peer dropped the connection before answering.
      if (code === 'UND_ERR_SOCKET') return 'ECONNRESET';
      if (ERROR_CODE_PATTERN.test(code)) return code;
    }
    current = current.cause;
  }
  return UNKNOWN;
}

/**
 * The longest prefix of `bytes` of at most `limit` bytes that does not split a UTF-8
 * sequence: back up while the first byte left out is a continuation byte (10xxxxxx).
 */
export function cutAtUtf8Boundary(bytes: Buffer, limit: number): Buffer {
  if (bytes.length <= limit) return bytes;
  let end = limit;
  while (end > 0 && (bytes[end]! & UTF8_CONTINUATION_MASK) === UTF8_CONTINUATION_BITS) end--;
  return bytes.subarray(0, end);
}

/** Text of at most `limit` UTF-8 bytes. NULs are dropped because PostgreSQL text rejects them. */
export function boundedText(bytes: Buffer, limit: number): string {
  let text = cutAtUtf8Boundary(bytes, limit)
    .toString('utf8')
    .replace(/\u0000/g, '');
  // Invalid input decodes to U+FFFD (3 bytes), which can grow the text past the limit; the
  // re-encoded text is valid UTF-8, so a second cut is exact.
  if (Buffer.byteLength(text) > limit) text = cutAtUtf8Boundary(Buffer.from(text), limit).toString('utf8');
  return text;
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** X-Service-Event-Id: the event's id, else the payload's own `id` (test deliveries). */
function eventIdFor(req: SendRequest): string | null {
  if (req.eventId !== null) return req.eventId;
  try {
    const parsed: unknown = JSON.parse(req.body);
    if (parsed && typeof parsed === 'object' && 'id' in parsed && typeof parsed.id === 'string') return parsed.id;
  } catch {
    // Not JSON: send without the header rather than fail the attempt.
  }
  return null;
}

/** Rejects when `signal` aborts, so a hung resolver cannot outlive the attempt's budget. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Reads up to `limit` bytes, then destroys the stream so a huge body is never downloaded. */
async function readPrefix(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<{ bytes: Buffer; error: unknown }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      total += chunk.length;
      // One byte past the limit tells the UTF-8 cut whether the limit splits a character.
      if (total > limit) break; // leaving the loop destroys the stream (and its connection)
    }
    return { bytes: Buffer.concat(chunks, total), error: null };
  } catch (error) {
    return { bytes: Buffer.concat(chunks, total), error };
  } finally {
    body.destroy();
  }
}

export function createSender(options: SenderOptions): Sender {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? MAX_STORED_RESPONSE_BYTES;
  const now = options.now ?? (() => new Date());
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const transport = createTransport({ extraCaCerts: options.extraCaCerts ?? [], connectTimeoutMs: timeoutMs });
  let closed = false;

  async function attempt(req: SendRequest, startedAt: Date): Promise<Omit<SendResult, 'startedAt' | 'finishedAt'>> {
    const failed = (result: AttemptResult, errorClass: string) => ({
      result,
      responseStatus: null,
      responseBody: null,
      responseHeaders: null,
      errorClass,
    });
    const failure = (errorClass: string) => failed(errorClass === TIMEOUT ? { kind: 'timeout' } : { kind: 'transport_error', errorClass }, errorClass);

    if (closed) return failure(SENDER_CLOSED);
    // One deadline for the whole attempt, DNS included. A timer we clear (not AbortSignal.timeout,
    // whose timers stay armed for the full 10 s: thousands at once under load).
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new DOMException('attempt timed out', 'TimeoutError')), timeoutMs);
    const signal = controller.signal;
    try {
      const check = await raceSignal(checkWebhookUrl(req.url, options.urlPolicy), signal);
      if (!check.ok) {
        return failed({ kind: 'url_unsafe', unsafeClass: check.unsafeClass }, `url_unsafe:${check.unsafeClass}`);
      }
      // Every answer passed the check; the first is the one we dial (and the only one).
      const address = check.addresses[0]!;
      const agent = transport.agentFor(check.url.origin, address);

      const headers = deliveryHeaders({
        secret: req.secret,
        previousSecret: req.previousSecret ?? null,
        body: req.body,
        eventType: req.eventType,
        deliveryId: req.deliveryId,
        eventId: eventIdFor(req),
        timestampSeconds: Math.floor(startedAt.getTime() / 1000),
        userAgent,
      });

      // origin + path only: URL userinfo is never forwarded. undici's request() does not
      // follow redirects (undici 7 has no maxRedirections here), so a 3xx is the answer.
      const response = await undici().request(`${check.url.origin}${check.url.pathname}${check.url.search}`, {
        dispatcher: agent,
        method: 'POST',
        headers,
        body: req.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      });
      const { bytes, error } = await readPrefix(response.body, maxResponseBytes);
      // undici hands a finished keep-alive socket back to its pool one event-loop turn later
      // (setImmediate in client-h1); waiting that turn lets a send that follows straight after
      // reuse the connection instead of opening a second one.
      await nextLoopTurn();
      const retryAfter = response.headers['retry-after'];
      return {
        result: { kind: 'response', status: response.statusCode, ...(typeof retryAfter === 'string' && { retryAfter }) },
        responseStatus: response.statusCode,
        responseBody: boundedText(bytes, maxResponseBytes),
        responseHeaders: flattenHeaders(response.headers),
        errorClass: error === null ? null : classifyError(error),
      };
    } catch (error) {
      return failure(closed ? SENDER_CLOSED : classifyError(error));
    } finally {
      clearTimeout(deadline);
    }
  }

  // An injected clock that throws must not make send() throw.
  const safeNow = () => {
    try {
      return now();
    } catch {
      return new Date();
    }
  };

  return {
    async send(req) {
      const startedAt = safeNow();
      let outcome: Omit<SendResult, 'startedAt' | 'finishedAt'>;
      try {
        outcome = await attempt(req, startedAt);
      } catch (error) {
        // attempt() catches its own errors; this is the last guard behind the "never throws" promise.
        const errorClass = classifyError(error);
        outcome = { result: { kind: 'transport_error', errorClass }, responseStatus: null, responseBody: null, responseHeaders: null, errorClass };
      }
      return { ...outcome, startedAt, finishedAt: safeNow() };
    },
    async close() {
      closed = true;
      await transport.close();
    },
  };
}
