/**
 * Webhook payload signing and verification.
 *
 * Header format is Stripe's: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<rawBody>">`,
 * keyed with the secret string's UTF-8 bytes, so receivers can reuse Stripe-style verifiers.
 * During a secret rotation there is one `v1` per secret (new first), as Stripe does.
 * Beside it go the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), keyed with the same bytes, so Standard Webhooks libraries (the
 * `standardwebhooks` npm package) verify a delivery given `whsec_` + base64 of the secret string.
 * Pure and transport-free: no I/O, no clock unless the caller omits `now`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  STANDARD_ID_HEADER,
  STANDARD_SECRET_PREFIX,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
} from '../domain/webhooks/signature-header.ts';

export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, STANDARD_ID_HEADER, STANDARD_SIGNATURE_HEADER, STANDARD_TIMESTAMP_HEADER };

/** The only scheme we emit and accept; others (e.g. Stripe's test-mode `v0`) are ignored. */
const SIGNATURE_SCHEME = 'v1';
const TIMESTAMP_KEY = 't';

/** SHA-256 digests are 32 bytes; any other decoded length can never match. */
const HMAC_DIGEST_BYTES = 32;

/**
 * Real headers are ~80 chars (a few more during secret rotation). Refusing anything
 * far larger bounds the parsing and HMAC-comparison work an attacker can force on us.
 */
const MAX_HEADER_LENGTH = 4096;

/** Canonical base-10 integer, no sign or leading zeros, so the signed `t` string is unambiguous. */
const TIMESTAMP_PATTERN = /^(?:0|[1-9][0-9]{0,14})$/;
/** Even number of hex digits; Buffer.from(x, 'hex') silently truncates at bad chars, so check first. */
const HEX_PATTERN = /^(?:[0-9a-fA-F]{2})+$/;

export type VerifyFailureReason = 'missing_header' | 'malformed_header' | 'no_valid_signature' | 'timestamp_outside_tolerance';

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailureReason };

export interface VerifyOptions {
  /** Maximum allowed |now - t| in seconds. Default {@link DEFAULT_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  /** Current time in unix seconds; injectable for tests. */
  now?: () => number;
}

function computeSignature(secret: string, timestamp: string, rawBody: string | Uint8Array): Buffer {
  // Feed the pieces separately so a Buffer body is signed byte-for-byte, never re-encoded.
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/** One secret or several (current first, then the previous one during a rotation). */
export type Secrets = string | readonly string[];

/** Throws on programmer errors: a bad signature sent to a customer is worse than a failed attempt. */
function checkedSecrets(secrets: Secrets, caller: string): readonly string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0 || list.some((secret) => typeof secret !== 'string' || secret.length === 0)) {
    throw new TypeError(`${caller}: every secret must be a non-empty string`);
  }
  return list;
}

function checkedTimestamp(timestampSeconds: number, caller: string): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`${caller}: timestampSeconds must be a non-negative integer`);
  }
  return String(timestampSeconds);
}

/**
 * Builds the X-Service-Signature value for one delivery attempt: `t=…,v1=<sig>` with one `v1`
 * per secret. Throws on programmer errors (empty secret, non-integer timestamp).
 */
export function signPayload(secrets: Secrets, rawBody: string, timestampSeconds: number): string {
  const list = checkedSecrets(secrets, 'signPayload');
  if (typeof rawBody !== 'string') {
    throw new TypeError('signPayload: rawBody must be a string');
  }
  const t = checkedTimestamp(timestampSeconds, 'signPayload');
  const signatures = list.map((secret) => `${SIGNATURE_SCHEME}=${computeSignature(secret, t, rawBody).toString('hex')}`);
  return [`${TIMESTAMP_KEY}=${t}`, ...signatures].join(',');
}

/**
 * The Standard Webhooks signature header: `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`, one per
 * secret, space-separated. Keyed with the secret string's UTF-8 bytes, like ours.
 */
export function signStandardWebhook(secrets: Secrets, messageId: string, rawBody: string, timestampSeconds: number): string {
  const list = checkedSecrets(secrets, 'signStandardWebhook');
  if (typeof messageId !== 'string' || messageId.length === 0 || typeof rawBody !== 'string') {
    throw new TypeError('signStandardWebhook: messageId must be a non-empty string and rawBody a string');
  }
  const t = checkedTimestamp(timestampSeconds, 'signStandardWebhook');
  return list
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${messageId}.${t}.`, 'utf8').update(rawBody, 'utf8').digest('base64')}`)
    .join(' ');
}

/** The secret as Standard Webhooks libraries take it: `whsec_` + base64 of the secret string's bytes. */
export const standardWebhooksSecret = (secret: string): string => `${STANDARD_SECRET_PREFIX}${Buffer.from(secret, 'utf8').toString('base64')}`;

type ParsedHeader = { timestamp: string; signatures: string[] };

/** Returns null when the header is structurally unusable. */
function parseHeader(header: string): ParsedHeader | null {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const rawItem of header.split(',')) {
    const item = rawItem.trim();
    if (item === '') continue; // tolerate trailing/double commas
    const eq = item.indexOf('=');
    if (eq <= 0) return null;
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (key === TIMESTAMP_KEY) {
      // Two timestamps make it ambiguous which one was signed: refuse rather than guess.
      if (timestamp !== undefined) return null;
      timestamp = value;
    } else if (key === SIGNATURE_SCHEME) {
      signatures.push(value); // several allowed: old and new secret during rotation
    }
    // Unknown schemes are ignored so future schemes can be added without breaking receivers.
  }
  if (timestamp === undefined || !TIMESTAMP_PATTERN.test(timestamp)) return null;
  return { timestamp, signatures };
}

function signatureMatches(candidateHex: string, expected: Buffer): boolean {
  if (!HEX_PATTERN.test(candidateHex)) return false;
  const candidate = Buffer.from(candidateHex, 'hex');
  // timingSafeEqual throws on unequal lengths; the digest length is public anyway.
  if (candidate.length !== HMAC_DIGEST_BYTES || candidate.length !== expected.length) return false;
  return timingSafeEqual(candidate, expected);
}

/**
 * Verifies a signature header against the raw request body. Never throws.
 *
 * Any matching `v1` passes (a delivery during a rotation carries one per secret), and `secret`
 * may be a list, so a receiver in the middle of switching secrets can try both.
 * The HMAC is checked before the timestamp so that unauthenticated callers only ever
 * learn "no_valid_signature", not anything about our clock. Unlike Stripe's helper,
 * timestamps in the future beyond the tolerance are rejected too (pre-signed replays).
 */
export function verifySignature(header: string | null | undefined, rawBody: string | Buffer, secret: Secrets, options?: VerifyOptions): VerifyResult {
  try {
    if (header === null || header === undefined) return { ok: false, reason: 'missing_header' };
    // Runtime guard: frameworks can hand us string[] for repeated headers.
    if (typeof header !== 'string') return { ok: false, reason: 'malformed_header' };
    if (header.trim() === '') return { ok: false, reason: 'missing_header' };
    if (header.length > MAX_HEADER_LENGTH) return { ok: false, reason: 'malformed_header' };

    const parsed = parseHeader(header);
    if (parsed === null) return { ok: false, reason: 'malformed_header' };

    // An empty key is guessable by anyone, so it can never authenticate anything.
    const secrets = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
    if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
      return { ok: false, reason: 'no_valid_signature' };
    }
    if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
      return { ok: false, reason: 'no_valid_signature' };
    }

    const expected = secrets.map((s) => computeSignature(s, parsed.timestamp, rawBody));
    if (!parsed.signatures.some((sig) => expected.some((digest) => signatureMatches(sig, digest)))) {
      return { ok: false, reason: 'no_valid_signature' };
    }

    const timestamp = Number(parsed.timestamp);
    const tolerance = options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options?.now ? options.now() : Math.floor(Date.now() / 1000);
    // Written as !(x <= y) so a NaN tolerance or clock fails closed instead of passing.
    if (!(Math.abs(now - timestamp) <= tolerance)) {
      return { ok: false, reason: 'timestamp_outside_tolerance' };
    }
    return { ok: true, timestamp };
  } catch {
    // Last-resort guard (e.g. a throwing `now` or exotic body object): reject, never crash the handler.
    return { ok: false, reason: 'no_valid_signature' };
  }
}
