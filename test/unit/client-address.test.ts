import { describe, expect, it } from 'vitest';
import { formatTruncated, truncateAddress } from '../../http/client-address.ts';
import type { TruncatedAddress } from '../../http/client-address.ts';

const U = 'unparseable';

// [input, expected formatTruncated(output)]; the kind is derived from the expectation.
const rows: Array<[string | null | undefined, string]> = [
  // IPv4 → /24
  ['203.0.113.77', '203.0.113.0/24'],
  ['192.0.2.1', '192.0.2.0/24'],
  ['0.0.0.0', '0.0.0.0/24'],
  ['255.255.255.255', '255.255.255.0/24'],
  ['10.0.0.1', '10.0.0.0/24'],
  ['127.0.0.1', '127.0.0.0/24'],
  ['  198.51.100.9 \n', '198.51.100.0/24'],
  ['1.2.3.4:5678', '1.2.3.0/24'],
  ['1.2.3.4:0', '1.2.3.0/24'],
  ['1.2.3.4:65535', '1.2.3.0/24'],
  // IPv4 rejects
  ['256.1.1.1', U],
  ['1.2.3.999', U],
  ['1.2.3.256', U],
  ['1.2.3', U],
  ['1.2.3.4.5', U],
  ['1..3.4', U],
  ['1.2.3.', U],
  ['.1.2.3', U],
  ['+1.2.3.4', U],
  ['1.-2.3.4', U],
  ['1.2.3.4a', U],
  ['0x7f.0.0.1', U],
  ['01.2.3.4', U],
  ['1.2.3.00', U],
  ['1.2.3.4:', U],
  ['1.2.3.4:65536', U],
  ['1.2.3.4:80:80', U],
  ['1.2.3.4/24', U],
  ['1.2 .3.4', U],
  ['127.1', U],
  ['2130706433', U],
  // IPv6 → /48, RFC 5952 compressed
  ['2001:db8:1234:5678::1', '2001:db8:1234::/48'],
  ['2001:db8:0:1::1', '2001:db8::/48'],
  ['2001:0db8:abcd:0012:0000:0000:0000:0001', '2001:db8:abcd::/48'],
  ['2001:DB8:ABCD:12::1', '2001:db8:abcd::/48'],
  ['::1', '::/48'],
  ['::', '::/48'],
  ['0:0:1::', '0:0:1::/48'],
  ['2001::1', '2001::/48'],
  ['2001:0:0:1::', '2001::/48'],
  ['fe80::1%eth0', 'fe80::/48'],
  ['fe80::abcd:1%25', 'fe80::/48'],
  ['[2001:db8::1]', '2001:db8::/48'],
  ['[2001:db8:ff::1]:443', '2001:db8:ff::/48'],
  ['[fe80::1%eth0]:8080', 'fe80::/48'],
  ['1:2:3:4:5:6:7:8', '1:2:3::/48'],
  ['1:2:3:4:5:6:7::', '1:2:3::/48'],
  ['64:ff9b::192.0.2.33', '64:ff9b::/48'],
  ['2001:db8:1:2:3:4:1.2.3.4', '2001:db8:1::/48'],
  [' 2001:db8:5::9 ', '2001:db8:5::/48'],
  // IPv4-mapped IPv6 → treated as IPv4
  ['::ffff:192.0.2.33', '192.0.2.0/24'],
  ['::FFFF:192.0.2.33', '192.0.2.0/24'],
  ['::ffff:c000:221', '192.0.2.0/24'],
  ['::FFFF:C000:0221', '192.0.2.0/24'],
  ['0:0:0:0:0:ffff:203.0.113.9', '203.0.113.0/24'],
  ['[::ffff:198.51.100.7]:443', '198.51.100.0/24'],
  ['::ffff:999.1.1.1', U],
  ['::ffff:01.2.3.4', U],
  ['::ffff:1.2.3', U],
  // IPv6 rejects
  ['2001:db8::1::1', U],
  [':::1', U],
  ['1:2:3:4:5:6:7:8:9', U],
  ['1:2:3:4:5:6:7', U],
  ['1:2:3:4:5:6:7:8::', U],
  [':1:2:3:4:5:6:7', U],
  ['2001:db8::12345', U],
  ['2001:db8::g', U],
  ['1.2.3.4::1', U],
  ['fe80::1%', U],
  ['fe80::1%eth 0', U],
  ['[2001:db8::1', U],
  ['[2001:db8::1]:', U],
  ['[2001:db8::1]:99999', U],
  ['[2001:db8::1]x', U],
  ['[1.2.3.4]', U],
  ['[1.2.3.4]:80', U],
  ['2001:db8::1:443x', U],
  // garbage
  ['', U],
  ['   ', U],
  [null, U],
  [undefined, U],
  ['localhost', U],
  ['example.com', U],
  ['unknown', U],
  ['not an ip', U],
  ['1.2.3.4, 5.6.7.8', U],
  ['1'.repeat(101), U],
  [`::${'0:'.repeat(40)}1`, U],
  [`${' '.repeat(95)}1.2.3.4`, U],
];

function kindOf(expected: string): TruncatedAddress['kind'] {
  if (expected === U) return 'unparseable';
  return expected.includes(':') ? 'ipv6' : 'ipv4';
}

describe('truncateAddress', () => {
  it.each(rows)('%j → %s', (input, expected) => {
    const t = truncateAddress(input);
    expect(t.kind).toBe(kindOf(expected));
    expect(formatTruncated(t)).toBe(expected);
    if (t.kind !== 'unparseable') expect(t.prefix).toBe(expected);
  });

  it('never returns the full address for a parseable input', () => {
    for (const [input, expected] of rows) {
      if (expected === U || input == null) continue;
      expect(formatTruncated(truncateAddress(input))).not.toBe(input.trim());
    }
  });

  it('tolerates non-string values at runtime', () => {
    for (const v of [42, {}, [], true, Symbol('x')]) {
      expect(truncateAddress(v as unknown as string)).toEqual({ kind: 'unparseable' });
    }
  });

  it('never throws on 1,000 random strings', () => {
    // Deterministic PRNG (mulberry32) so failures are reproducible.
    let seed = 0x5eed;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let x = seed;
      x = Math.imul(x ^ (x >>> 15), x | 1);
      x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
    const alphabet = '0123456789abcdefABCDEFxX:.[]%/ +-\t\u0000\u00e9\ud83d';
    for (let i = 0; i < 1000; i++) {
      const len = Math.floor(rand() * 120);
      let s = '';
      for (let j = 0; j < len; j++) {
        s += rand() < 0.9 ? alphabet[Math.floor(rand() * alphabet.length)] : String.fromCharCode(Math.floor(rand() * 0x10000));
      }
      let t: TruncatedAddress | undefined;
      expect(() => {
        t = truncateAddress(s);
      }).not.toThrow();
      expect(['ipv4', 'ipv6', 'unparseable']).toContain(t?.kind);
      const truncated = t as TruncatedAddress;
      expect(formatTruncated(truncated)).toBe(truncated.kind === 'unparseable' ? 'unparseable' : truncated.prefix);
    }
  });
});

describe('formatTruncated', () => {
  it('returns the prefix or "unparseable"', () => {
    expect(formatTruncated({ kind: 'ipv4', prefix: '203.0.113.0/24' })).toBe('203.0.113.0/24');
    expect(formatTruncated({ kind: 'ipv6', prefix: '2001:db8:1234::/48' })).toBe('2001:db8:1234::/48');
    expect(formatTruncated({ kind: 'unparseable' })).toBe('unparseable');
  });
});
