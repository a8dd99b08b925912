import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../dispatcher/sign.ts';

const SECRET = 'whsec_test_secret_ü'; // non-ASCII on purpose: key must be the UTF-8 bytes
const BODY = '{"id":"evt_1","type":"invoice.paid","amount":"12.50"}';
const T = 1_700_000_000;
const at = (seconds: number) => ({ now: () => seconds });

function independentHmac(secret: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${t}.`, 'utf8'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')]))
    .digest('hex');
}

describe('signPayload', () => {
  it('matches an HMAC computed independently with node:crypto', () => {
    const header = signPayload(SECRET, BODY, T);
    expect(header).toBe(`t=${T},v1=${independentHmac(SECRET, T, BODY)}`);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('rejects programmer errors', () => {
    expect(() => signPayload('', BODY, T)).toThrow(TypeError);
    expect(() => signPayload(SECRET, BODY, 1.5)).toThrow(RangeError);
    expect(() => signPayload(SECRET, BODY, -1)).toThrow(RangeError);
    expect(() => signPayload(SECRET, BODY, Number.NaN)).toThrow(RangeError);
  });
});

describe('verifySignature', () => {
  const header = signPayload(SECRET, BODY, T);

  it('round-trips', () => {
    expect(verifySignature(header, BODY, SECRET, at(T))).toEqual({ ok: true, timestamp: T });
  });

  it('accepts the same bytes as a Buffer body', () => {
    expect(verifySignature(header, Buffer.from(BODY, 'utf8'), SECRET, at(T))).toEqual({ ok: true, timestamp: T });
  });

  it('verifies a binary Buffer body byte-for-byte', () => {
    const bin = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]); // not valid UTF-8
    const h = `t=${T},v1=${independentHmac(SECRET, T, bin)}`;
    expect(verifySignature(h, bin, SECRET, at(T))).toEqual({ ok: true, timestamp: T });
    expect(verifySignature(h, bin.toString('utf8'), SECRET, at(T)).ok).toBe(false);
  });

  it('rejects a tampered body', () => {
    expect(verifySignature(header, BODY.replace('12.50', '99.50'), SECRET, at(T))).toEqual({
      ok: false,
      reason: 'no_valid_signature',
    });
    expect(verifySignature(header, `${BODY} `, SECRET, at(T)).ok).toBe(false);
  });

  it('rejects a wrong secret, and an empty secret', () => {
    expect(verifySignature(header, BODY, 'whsec_other', at(T))).toEqual({ ok: false, reason: 'no_valid_signature' });
    const emptyKeyHeader = `t=${T},v1=${createHmac('sha256', '').update(`${T}.${BODY}`).digest('hex')}`;
    expect(verifySignature(emptyKeyHeader, BODY, '', at(T))).toEqual({ ok: false, reason: 'no_valid_signature' });
  });

  it('rejects a tampered timestamp', () => {
    const shifted = header.replace(`t=${T}`, `t=${T + 1}`);
    expect(verifySignature(shifted, BODY, SECRET, at(T))).toEqual({ ok: false, reason: 'no_valid_signature' });
  });

  it('enforces the default tolerance in both directions', () => {
    const tol = 5 * 60; // spec Limits: "Signature tolerance: 5 minutes by default"
    expect(verifySignature(header, BODY, SECRET, at(T + tol)).ok).toBe(true);
    expect(verifySignature(header, BODY, SECRET, at(T - tol)).ok).toBe(true);
    expect(verifySignature(header, BODY, SECRET, at(T + tol + 1))).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    // Signed in the future beyond tolerance (Stripe's helper would accept this; we must not).
    expect(verifySignature(header, BODY, SECRET, at(T - tol - 1))).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('uses the real clock when no `now` is given', () => {
    const fresh = signPayload(SECRET, BODY, Math.floor(Date.now() / 1000));
    expect(verifySignature(fresh, BODY, SECRET).ok).toBe(true);
    expect(verifySignature(header, BODY, SECRET)).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
  });

  it('honours a custom tolerance', () => {
    expect(verifySignature(header, BODY, SECRET, { toleranceSeconds: 10, now: () => T + 10 }).ok).toBe(true);
    expect(verifySignature(header, BODY, SECRET, { toleranceSeconds: 10, now: () => T + 11 }).ok).toBe(false);
    expect(verifySignature(header, BODY, SECRET, { toleranceSeconds: 10, now: () => T - 11 }).ok).toBe(false);
    expect(verifySignature(header, BODY, SECRET, { toleranceSeconds: 3600, now: () => T + 3600 }).ok).toBe(true);
  });

  it('fails closed on a NaN tolerance or clock, and on a throwing clock', () => {
    expect(verifySignature(header, BODY, SECRET, { toleranceSeconds: Number.NaN, now: () => T }).ok).toBe(false);
    expect(verifySignature(header, BODY, SECRET, { now: () => Number.NaN }).ok).toBe(false);
    const throwingClock = () => {
      throw new Error('clock broke');
    };
    expect(verifySignature(header, BODY, SECRET, { now: throwingClock }).ok).toBe(false);
  });

  it('accepts any of several v1 entries (secret rotation) and ignores v0', () => {
    const oldSig = independentHmac('whsec_old', T, BODY);
    const newSig = independentHmac(SECRET, T, BODY);
    const rotated = `t=${T},v1=${oldSig},v1=${newSig},v0=deadbeef`;
    expect(verifySignature(rotated, BODY, SECRET, at(T))).toEqual({ ok: true, timestamp: T });
    expect(verifySignature(rotated, BODY, 'whsec_old', at(T))).toEqual({ ok: true, timestamp: T });
    // A valid signature under an unknown scheme is not accepted.
    expect(verifySignature(`t=${T},v0=${newSig}`, BODY, SECRET, at(T))).toEqual({
      ok: false,
      reason: 'no_valid_signature',
    });
  });

  it('accepts whitespace after commas and a valid v1 among junk ones', () => {
    const sig = independentHmac(SECRET, T, BODY);
    const junky = `t=${T}, v1=zz, v1=abc, v1=${'0'.repeat(64)}, v1=${sig}, v1=, foo=bar,`;
    expect(verifySignature(junky, BODY, SECRET, at(T))).toEqual({ ok: true, timestamp: T });
    expect(verifySignature(`v1=${sig},t=${T}`, BODY, SECRET, at(T)).ok).toBe(true); // order-independent
    expect(verifySignature(`t=${T},v1=${sig.toUpperCase()}`, BODY, SECRET, at(T)).ok).toBe(true);
  });

  const sig = independentHmac(SECRET, T, BODY);
  const cases: Array<[string, unknown, string]> = [
    ['undefined', undefined, 'missing_header'],
    ['null', null, 'missing_header'],
    ['empty string', '', 'missing_header'],
    ['whitespace only', '   ', 'missing_header'],
    ['number', 12345, 'malformed_header'],
    ['object', { t: T, v1: sig }, 'malformed_header'],
    ['array (repeated header)', [`t=${T},v1=${sig}`], 'malformed_header'],
    ['non-numeric t', `t=abc,v1=${sig}`, 'malformed_header'],
    ['t=abc with junk v1', 't=abc,v1=..', 'malformed_header'],
    ['fractional t', `t=${T}.5,v1=${sig}`, 'malformed_header'],
    ['negative t', `t=-${T},v1=${sig}`, 'malformed_header'],
    ['hex t', `t=0x${T.toString(16)},v1=${sig}`, 'malformed_header'],
    ['exponent t', `t=1.7e9,v1=${sig}`, 'malformed_header'],
    ['leading-zero t', `t=0${T},v1=${sig}`, 'malformed_header'],
    ['empty t', `t=,v1=${sig}`, 'malformed_header'],
    ['huge t', `t=${'9'.repeat(40)},v1=${sig}`, 'malformed_header'],
    ['missing t', `v1=${sig}`, 'malformed_header'],
    ['duplicate t', `t=${T},t=${T},v1=${sig}`, 'malformed_header'],
    ['item without =', `t=${T},v1=${sig},garbage`, 'malformed_header'],
    ['item with empty key', `t=${T},=${sig}`, 'malformed_header'],
    ['uppercase T key', `T=${T},v1=${sig}`, 'malformed_header'],
    ['full-width digits t', `t=１７００,v1=${sig}`, 'malformed_header'],
    ['huge header', `t=${T},${`v1=${sig},`.repeat(1000)}`, 'malformed_header'],
    ['no v1 at all', `t=${T}`, 'no_valid_signature'],
    ['only v0', `t=${T},v0=${sig}`, 'no_valid_signature'],
    ['empty v1', `t=${T},v1=`, 'no_valid_signature'],
    ['odd-length hex', `t=${T},v1=${sig.slice(0, 63)}`, 'no_valid_signature'],
    ['non-hex chars', `t=${T},v1=${'g'.repeat(64)}`, 'no_valid_signature'],
    ['hex with valid prefix then junk', `t=${T},v1=${sig.slice(0, 62)}zz`, 'no_valid_signature'],
    ['too short (16 bytes)', `t=${T},v1=${sig.slice(0, 32)}`, 'no_valid_signature'],
    ['too long (33 bytes)', `t=${T},v1=${sig}00`, 'no_valid_signature'],
    ['base64 instead of hex', `t=${T},v1=${Buffer.from(sig, 'hex').toString('base64')}`, 'no_valid_signature'],
    ['duplicate wrong v1 entries', `t=${T},v1=${'ab'.repeat(32)},v1=${'ab'.repeat(32)}`, 'no_valid_signature'],
    ['NUL and control chars', `t=${T},v1=\u0000${sig}\u0007`, 'no_valid_signature'],
    ['lone surrogate', `t=${T},v1=\ud800${sig}`, 'no_valid_signature'],
  ];

  it.each(cases)('rejects %s', (_name, input, reason) => {
    const result = verifySignature(input as string, BODY, SECRET, at(T));
    expect(result).toEqual({ ok: false, reason });
  });

  it('rejects non-string, non-Buffer bodies without throwing', () => {
    for (const body of [undefined, null, 42, { a: 1 }, ['x']]) {
      expect(verifySignature(header, body as unknown as string, SECRET, at(T))).toEqual({
        ok: false,
        reason: 'no_valid_signature',
      });
    }
  });

  it('never throws on random input', () => {
    const alphabet = 't=v1,0123456789abcdefABCDEF ;=\u0000\u00ff\ud800é-.';
    let seed = 42;
    const rand = (n: number) => {
      // Deterministic LCG so a failure is reproducible.
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const len = rand(200);
      let s = '';
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)];
      const body = i % 2 === 0 ? randomBytes(rand(64)) : s;
      const secret = i % 7 === 0 ? '' : s.slice(0, 10);
      let result: ReturnType<typeof verifySignature> | undefined;
      expect(() => {
        result = verifySignature(s, body, secret, at(T));
      }).not.toThrow();
      expect(result?.ok).toBe(false);
    }
  });
});
