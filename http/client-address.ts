/**
 * Truncates a client source address before it is written to logs for denied
 * API requests (missing token, validation failure, insufficient scope,
 * membership denial). Logs keep only the network prefix (/24 for IPv4, /48
 * for IPv6), never the full address.
 *
 * The parser is deliberately strict: anything ambiguous is reported as
 * 'unparseable' rather than guessed at, and the functions never throw.
 */
import { isIPv6 } from 'node:net';

export type TruncatedAddress =
  | { kind: 'ipv4'; prefix: string /* e.g. '203.0.113.0/24' */ }
  | { kind: 'ipv6'; prefix: string /* e.g. '2001:db8:1234::/48' (canonical compressed, lower case) */ }
  | { kind: 'unparseable' };

// Longest plausible input is a bracketed full IPv6 with zone and port; anything
// longer is junk and we refuse it before doing any work on it.
const MAX_INPUT_LENGTH = 100;

const UNPARSEABLE: TruncatedAddress = Object.freeze({ kind: 'unparseable' }) as TruncatedAddress;

// One decimal octet: a single '0', or 1-3 digits without a leading zero
// (leading zeros are ambiguous because some parsers read them as octal).
const OCTET_RE = /^(?:0|[1-9][0-9]{0,2})$/;
const HEXTET_RE = /^[0-9a-fA-F]{1,4}$/;
const PORT_RE = /^[0-9]{1,5}$/;
// RFC 6874 zone IDs are interface names/indices; keep to a conservative set.
const ZONE_RE = /^[0-9A-Za-z_.~-]+$/;

/** Strict dotted quad → 4 octets, or null. */
function parseIPv4(s: string): [number, number, number, number] | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!OCTET_RE.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out as [number, number, number, number];
}

function isValidPort(s: string): boolean {
  return PORT_RE.test(s) && Number(s) <= 65535;
}

/** Parses hextet groups on one side of '::' (possibly with an IPv4 tail). */
function parseGroups(s: string, allowIPv4Tail: boolean): number[] | null {
  if (s === '') return [];
  const parts = s.split(':');
  const out: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] ?? '';
    if (p.includes('.')) {
      // A dotted IPv4 tail is only legal as the very last 32 bits.
      if (!allowIPv4Tail || i !== parts.length - 1) return null;
      const v4 = parseIPv4(p);
      if (!v4) return null;
      out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    } else {
      if (!HEXTET_RE.test(p)) return null; // also rejects empty groups (stray ':')
      out.push(parseInt(p, 16));
    }
  }
  return out;
}

/** IPv6 text (no brackets, no port) → 8 groups, or null. Zone is dropped. */
function parseIPv6(input: string): number[] | null {
  let s = input;
  const pct = s.indexOf('%');
  if (pct !== -1) {
    // Zone IDs are local interface names: useless in logs, so drop them.
    if (!ZONE_RE.test(s.slice(pct + 1))) return null;
    s = s.slice(0, pct);
  }
  if (!s.includes(':')) return null;

  const dbl = s.indexOf('::');
  let groups: number[];
  if (dbl === -1) {
    const g = parseGroups(s, true);
    if (g?.length !== 8) return null;
    groups = g;
  } else {
    // At most one '::' ('::::' / ':::' / 'a::b::c' are all ambiguous).
    if (s.indexOf('::', dbl + 1) !== -1) return null;
    const head = parseGroups(s.slice(0, dbl), false);
    const tail = parseGroups(s.slice(dbl + 2), true);
    if (!head || !tail) return null;
    // '::' must stand for at least one zero group.
    if (head.length + tail.length > 7) return null;
    const zeros = new Array<number>(8 - head.length - tail.length).fill(0);
    groups = [...head, ...zeros, ...tail];
  }

  // Belt and braces: our grammar is a subset of what Node accepts, so a
  // disagreement means we have a bug; fail closed.
  if (!isIPv6(s)) return null;
  return groups;
}

/** RFC 5952 text form: lower case, no leading zeros, longest zero run (≥2) as '::'. */
function formatIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  const left = hex.slice(0, bestStart).join(':');
  const right = hex.slice(bestStart + bestLen).join(':');
  return `${left}::${right}`;
}

function ipv4Prefix(a: number, b: number, c: number): TruncatedAddress {
  return { kind: 'ipv4', prefix: `${a}.${b}.${c}.0/24` };
}

function fromIPv6Groups(groups: number[]): TruncatedAddress {
  // IPv4-mapped (::ffff:a.b.c.d) is how Node reports IPv4 clients on a
  // dual-stack socket. A /48 of it would keep the whole IPv4 address, so
  // truncate it as the IPv4 address it really is.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const hi = groups[6] ?? 0;
    const lo = groups[7] ?? 0;
    return ipv4Prefix(hi >> 8, hi & 0xff, lo >> 8);
  }
  const kept = [groups[0] ?? 0, groups[1] ?? 0, groups[2] ?? 0, 0, 0, 0, 0, 0];
  return { kind: 'ipv6', prefix: `${formatIPv6(kept)}/48` };
}

export function truncateAddress(raw: string | null | undefined): TruncatedAddress {
  // Runtime guard too: JS callers may hand us anything.
  if (typeof raw !== 'string' || raw.length > MAX_INPUT_LENGTH) return UNPARSEABLE;
  const s = raw.trim();
  if (s === '') return UNPARSEABLE;

  // Bracketed IPv6, optionally followed by ':port' (URL / Host-header form).
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close === -1) return UNPARSEABLE;
    const rest = s.slice(close + 1);
    if (rest !== '' && !(rest.startsWith(':') && isValidPort(rest.slice(1)))) return UNPARSEABLE;
    const groups = parseIPv6(s.slice(1, close));
    return groups ? fromIPv6Groups(groups) : UNPARSEABLE;
  }

  if (s.includes(':')) {
    // 'a.b.c.d:port': only strip a port when what precedes it is a strict
    // IPv4; a bare IPv6 like '2001:db8::1' also ends in ':digits'.
    const lastColon = s.lastIndexOf(':');
    const v4 = parseIPv4(s.slice(0, lastColon));
    if (v4) {
      return isValidPort(s.slice(lastColon + 1)) ? ipv4Prefix(v4[0], v4[1], v4[2]) : UNPARSEABLE;
    }
    const groups = parseIPv6(s);
    return groups ? fromIPv6Groups(groups) : UNPARSEABLE;
  }

  const v4 = parseIPv4(s);
  return v4 ? ipv4Prefix(v4[0], v4[1], v4[2]) : UNPARSEABLE;
}

export function formatTruncated(t: TruncatedAddress): string {
  return t.kind === 'unparseable' ? 'unparseable' : t.prefix;
}
