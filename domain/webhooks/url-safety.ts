// Webhook URL safety (SSRF guard).
//
// Used when a webhook is created, updated or retried, and again by the delivery
// dispatcher right before sending. The dispatcher must connect to one of the
// exact `addresses` returned here (not re-resolve the name), otherwise a DNS
// answer that changes between check and connect would bypass the guard.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Returns every A and AAAA address for a hostname. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

/** How long a URL check waits for DNS: a name server that never answers must not hold a request. */
export const RESOLVE_TIMEOUT_MS = 5_000;

export interface UrlSafetyOptions {
  resolver?: Resolver;
  /** CIDRs that are allowed despite being private (dev/test only), e.g. '127.0.0.0/8', '::1/128'. */
  allowedPrivateCidrs?: readonly string[];
  /** DNS answer deadline; past it the URL is refused as `dns_timeout`. Default {@link RESOLVE_TIMEOUT_MS}. */
  resolveTimeoutMs?: number;
}

export type UrlSafetyResult =
  | { ok: true; url: URL; hostname: string; port: number; addresses: string[] }
  | {
      ok: false;
      unsafeClass: string;
      message: string;
      /** The rule that refused it, e.g. `127.0.0.0/8 (loopback)` or `scheme must be https`. */
      rule: string;
      /** The refused address, when an address rule refused it. */
      address?: string;
      /** True when WEBHOOK_ALLOWED_PRIVATE_CIDRS could lift the refusal (a private-range address). */
      allowable: boolean;
    };

// ---------------------------------------------------------------------------
// IP parsing: addresses become { family, value } with the value as a BigInt so
// that IPv4 and IPv6 range checks are the same shift-and-compare.

interface Ip {
  family: 4 | 6;
  value: bigint;
}

const BITS = { 4: 32, 6: 128 } as const;

/** Parses a strict dotted-quad or IPv6 literal (zone id and case ignored). */
function parseIp(text: string): Ip | null {
  // The zone id (fe80::1%eth0) only picks an interface; the address is what matters.
  const ip = (text.includes(':') ? text.split('%')[0]! : text).toLowerCase();
  const family = isIP(ip);
  if (family === 4) return { family: 4, value: parseV4(ip) };
  if (family === 6) return { family: 6, value: parseV6(ip) };
  return null;
}

function parseV4(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseV6(ip: string): bigint {
  let text = ip;
  // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two 16-bit groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? [] : Array(8 - headGroups.length - restGroups.length).fill('0');
  return [...headGroups, ...zeros, ...restGroups].reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

function parseCidr(text: string): Cidr | null {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (!match) return null;
  const ip = parseIp(match[1]!);
  const prefix = Number(match[2]);
  if (!ip || match[1]!.includes('%') || prefix > BITS[ip.family]) return null;
  return { family: ip.family, base: ip.value, prefix };
}

function inCidr(ip: Ip, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const shift = BigInt(BITS[ip.family] - cidr.prefix);
  return ip.value >> shift === cidr.base >> shift;
}

interface BlockRow {
  cidr: Cidr;
  text: string;
  cls: string;
}

/** A class and the rule (range) that gave it. */
interface Classified {
  cls: string;
  rule: string;
}

function table(rows: [string, string][]): BlockRow[] {
  return rows.map(([text, cls]) => ({ cidr: parseCidr(text)!, text, cls }));
}

function lookupTable(ip: Ip, rows: BlockRow[]): Classified | undefined {
  const row = rows.find(({ cidr }) => inCidr(ip, cidr));
  return row && { cls: row.cls, rule: row.text };
}

// ---------------------------------------------------------------------------
// Classification. First match wins, so exact addresses come before their block.

const V4_BLOCKED = table([
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'this_network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'], // includes 169.254.169.254 cloud metadata
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietf_reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

// Prefixes that carry an IPv4 address: the embedded address decides.
const V6_MAPPED = parseCidr('::ffff:0:0/96')!;
const V6_TEREDO = parseCidr('2001::/32')!;
const V6_6TO4 = parseCidr('2002::/16')!;

const V6_BLOCKED = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'ipv4_compatible'], // deprecated ::a.b.c.d
  ['64:ff9b::/96', 'nat64'], // would reach an arbitrary IPv4 through the translator
  ['64:ff9b:1::/48', 'nat64'],
  ['100::/64', 'discard'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'], // RFC 9637
  ['2001:10::/28', 'reserved'], // ORCHID
  ['2001:20::/28', 'reserved'], // ORCHIDv2
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'site_local'],
  ['ff00::/8', 'multicast'],
]);
const V6_GLOBAL_UNICAST = parseCidr('2000::/3')!;

function classifyV4(value: bigint): Classified | null {
  return lookupTable({ family: 4, value }, V4_BLOCKED) ?? null;
}

function classifyEmbedded(prefix: string, carrier: string, v4: bigint): Classified | null {
  const inner = classifyV4(v4 & 0xffffffffn);
  return inner === null ? null : { cls: `${prefix}_${inner.cls}`, rule: `${carrier} carrying ${inner.rule}` };
}

function classifyV6(ip: Ip): Classified | null {
  if (inCidr(ip, V6_MAPPED)) return classifyEmbedded('ipv4_mapped', '::ffff:0:0/96', ip.value);
  if (inCidr(ip, V6_TEREDO)) return classifyEmbedded('teredo', '2001::/32', ip.value ^ 0xffffffffn); // client address is stored inverted
  if (inCidr(ip, V6_6TO4)) return classifyEmbedded('6to4', '2002::/16', ip.value >> 80n); // bits 16..48
  const listed = lookupTable(ip, V6_BLOCKED);
  if (listed) return listed;
  // Only global unicast space is routable on the public internet.
  return inCidr(ip, V6_GLOBAL_UNICAST) ? null : { cls: 'reserved', rule: 'outside 2000::/3 (global unicast)' };
}

/** The blocked class of an address and the range that blocks it; null for a public address. */
function classify(ip: string): Classified | null {
  const parsed = parseIp(ip);
  if (!parsed) return { cls: 'invalid_address', rule: 'not an IP address' };
  return parsed.family === 4 ? classifyV4(parsed.value) : classifyV6(parsed);
}

/**
 * Returns null for a public address, otherwise the name of the blocked class.
 * Anything that is not a valid IP literal is `invalid_address` (fail closed).
 */
export function classifyAddress(ip: string): string | null {
  return classify(ip)?.cls ?? null;
}

/** Parses a comma-separated CIDR list (e.g. from an env var); throws on an invalid entry. */
export function parseCidrList(list: string): string[] {
  const entries = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const entry of entries) {
    if (!parseCidr(entry)) throw new Error(`invalid CIDR "${entry}" (expected e.g. 127.0.0.0/8 or ::1/128)`);
  }
  return entries;
}

/** True when ip lies in one of the CIDRs. An IPv4-mapped IPv6 address also matches IPv4 CIDRs. */
export function isAddressInCidrs(ip: string, cidrs: readonly string[]): boolean {
  const parsed = parseIp(ip);
  if (!parsed) return false;
  const candidates = [parsed];
  if (parsed.family === 6 && inCidr(parsed, V6_MAPPED)) candidates.push({ family: 4, value: parsed.value & 0xffffffffn });
  return cidrs.some((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`invalid CIDR "${text}"`);
    return candidates.some((c) => inCidr(c, cidr));
  });
}

// ---------------------------------------------------------------------------
// URL check

const ADVICE = 'deliveries only go to public https endpoints';

function refuse(unsafeClass: string, message: string, rule: string): UrlSafetyResult {
  return { ok: false, unsafeClass, message, rule, allowable: false };
}

/** An address refused by a range rule; the allow-list could lift it unless it is unspecified. */
function refuseAddress(blocked: Classified, address: string, message: string): UrlSafetyResult {
  return {
    ok: false,
    unsafeClass: blocked.cls,
    message,
    rule: `${blocked.rule} (${blocked.cls})`,
    address,
    allowable: !blocked.cls.endsWith('unspecified') && blocked.cls !== 'invalid_address',
  };
}

function describe(cls: string): string {
  const words = cls.replace(/_/g, ' ');
  return `${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words} address`;
}

/** Returns what makes address unacceptable (class and rule), or null if it may be used. */
function blockedClass(address: string, allowed: readonly string[]): Classified | null {
  const blocked = classify(address);
  if (blocked === null) return null;
  // Unspecified addresses (0.0.0.0, ::) connect to the local host, so no allow-list lifts them.
  if (blocked.cls.endsWith('unspecified')) return blocked;
  return allowed.length > 0 && isAddressInCidrs(address, allowed) ? null : blocked;
}

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or TIMED_OUT once `ms` pass first (the timer never outlives the race). */
async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkWebhookUrl(raw: string, options: UrlSafetyOptions = {}): Promise<UrlSafetyResult> {
  const resolver = options.resolver ?? systemResolver;
  const allowed = options.allowedPrivateCidrs ?? [];

  let url: URL;
  try {
    // WHATWG URL already takes the real host after any userinfo and turns decimal,
    // octal, hex and short IPv4 forms into dotted quads.
    url = new URL(raw);
  } catch {
    return refuse('invalid_url', `webhook_url is not a valid URL; ${ADVICE}`, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:') {
    return refuse('scheme', `webhook_url uses the ${url.protocol.replace(/:$/, '')} scheme (rule: scheme must be https); ${ADVICE}`, 'scheme must be https');
  }
  let hostname = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (hostname.endsWith('.')) {
    // Strip trailing dots, then re-parse so that e.g. "0x7f.0.0.1.." also becomes a dotted IPv4 literal.
    hostname = hostname.replace(/\.+$/, '');
    if (hostname === '') return refuse('invalid_url', `webhook_url has no host; ${ADVICE}`, 'must name a host');
    try {
      hostname = new URL(`https://${hostname}/`).hostname;
    } catch {
      return refuse('invalid_url', `webhook_url has an invalid host; ${ADVICE}`, 'must name a valid host');
    }
  }
  if (hostname === '') return refuse('invalid_url', `webhook_url has no host; ${ADVICE}`, 'must name a host');
  const port = url.port === '' ? 443 : Number(url.port);
  if (port === 0) return refuse('invalid_url', `webhook_url has port 0; ${ADVICE}`, 'port must not be 0');

  if (isIP(hostname) !== 0) {
    const blocked = blockedClass(hostname, allowed);
    if (blocked) return refuseAddress(blocked, hostname, `webhook_url points to ${describe(blocked.cls)} (${hostname}, rule: ${blocked.rule}); ${ADVICE}`);
    return { ok: true, url, hostname, port, addresses: [hostname] };
  }

  let addresses: string[];
  const timeoutMs = options.resolveTimeoutMs ?? RESOLVE_TIMEOUT_MS;
  try {
    const answer = await withDeadline(resolver(hostname), timeoutMs);
    if (answer === TIMED_OUT) {
      return refuse('dns_timeout', `webhook_url host ${hostname} did not resolve within ${timeoutMs / 1000} s; ${ADVICE}`, 'host must resolve in time');
    }
    addresses = answer;
  } catch {
    return refuse('unresolvable', `webhook_url host ${hostname} could not be resolved; ${ADVICE}`, 'host must resolve');
  }
  if (!Array.isArray(addresses) || addresses.length === 0) {
    return refuse('unresolvable', `webhook_url host ${hostname} has no addresses; ${ADVICE}`, 'host must resolve');
  }
  const invalid = addresses.find((a) => typeof a !== 'string' || !parseIp(a));
  if (invalid !== undefined) {
    return refuse('unresolvable', `webhook_url host ${hostname} resolved to an invalid address; ${ADVICE}`, 'host must resolve to IP addresses');
  }
  // Every answer must be safe: the connecting side may pick any of them.
  for (const address of addresses) {
    const blocked = blockedClass(address, allowed);
    if (blocked) return refuseAddress(blocked, address, `webhook_url resolves to ${describe(blocked.cls)} (${address}, rule: ${blocked.rule}); ${ADVICE}`);
  }
  return { ok: true, url, hostname, port, addresses: [...addresses] };
}
