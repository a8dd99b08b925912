// Table-driven tests for the webhook URL safety check.
// No test touches the network: every name goes through an injected stub resolver,
// and IP literals below are only classified, never connected to.

import { describe, expect, it, vi } from 'vitest';
import { checkWebhookUrl, classifyAddress, isAddressInCidrs, parseCidrList } from '../../domain/webhooks/url-safety.ts';

interface Row {
  url: string;
  /** Stub resolver answer; present only for hostnames (the resolver must then be called exactly once). */
  dns?: string[] | 'throw';
  allow?: string[];
  /** 'ok' or the expected unsafeClass. */
  expect: string;
  /** Expected normalised hostname (also the name the resolver must be asked for). */
  host?: string;
  port?: number;
}

const PUBLIC4 = '93.184.216.34';
const PUBLIC6 = '2606:4700::1111';

const rows: Row[] = [
  // --- accepted --------------------------------------------------------------
  { url: 'https://example.com/', dns: [PUBLIC4], expect: 'ok', host: 'example.com', port: 443 },
  { url: 'https://example.com:8443/hooks?x=1', dns: [PUBLIC4], expect: 'ok', host: 'example.com', port: 8443 },
  { url: 'https://EXAMPLE.COM/', dns: [PUBLIC4], expect: 'ok', host: 'example.com' },
  { url: 'https://example.com./', dns: [PUBLIC4], expect: 'ok', host: 'example.com' },
  { url: 'https://example.com../', dns: [PUBLIC4], expect: 'ok', host: 'example.com' },
  { url: 'https://user:pass@example.com/', dns: [PUBLIC4], expect: 'ok', host: 'example.com' },
  { url: 'https://api.example.com/', dns: [PUBLIC4, PUBLIC6], expect: 'ok', host: 'api.example.com' },
  { url: 'https://v6.example.com/', dns: [PUBLIC6], expect: 'ok', host: 'v6.example.com' },
  { url: `https://${PUBLIC4}/`, expect: 'ok', host: PUBLIC4, port: 443 },
  { url: `https://${PUBLIC4}:8443/`, expect: 'ok', host: PUBLIC4, port: 8443 },
  { url: `https://[${PUBLIC6}]/`, expect: 'ok', host: PUBLIC6 },
  { url: `https://[${PUBLIC6}]:9443/`, expect: 'ok', host: PUBLIC6, port: 9443 },
  { url: 'https://[2606:4700::ABCD]/', expect: 'ok', host: '2606:4700::abcd' },
  { url: 'https://172.32.0.1/', expect: 'ok' }, // just past 172.16/12
  { url: 'https://100.128.0.1/', expect: 'ok' }, // just past 100.64/10
  { url: `https://[::ffff:${PUBLIC4}]/`, expect: 'ok', host: '::ffff:5db8:d822' },
  { url: 'https://[::ffff:5db8:d822]/', expect: 'ok' },
  { url: 'https://[2002:5db8:d822::1]/', expect: 'ok' }, // 6to4 of 93.184.216.34
  { url: 'https://[2001:0:4136:e378:8000:63bf:a247:27dd]/', expect: 'ok' }, // Teredo client 93.184.216.34

  // --- scheme and unparseable ------------------------------------------------
  { url: 'http://example.com/', expect: 'scheme' },
  { url: 'http://127.0.0.1/', expect: 'scheme' },
  { url: 'ftp://example.com/', expect: 'scheme' },
  { url: 'file:///etc/passwd', expect: 'scheme' },
  { url: 'javascript:alert(1)', expect: 'scheme' },
  { url: 'not a url', expect: 'invalid_url' },
  { url: '', expect: 'invalid_url' },
  { url: 'https://', expect: 'invalid_url' },
  { url: 'https://exa mple.com/', expect: 'invalid_url' },
  { url: 'https://[::1/', expect: 'invalid_url' },
  { url: 'https://1.2.3.4.5/', expect: 'invalid_url' },
  { url: 'https://./', expect: 'invalid_url' },
  { url: 'https://example.com:0/', expect: 'invalid_url' },
  { url: 'https://example.com:99999/', expect: 'invalid_url' },

  // --- resolver failures -----------------------------------------------------
  { url: 'https://nx.example.com/', dns: 'throw', expect: 'unresolvable', host: 'nx.example.com' },
  { url: 'https://empty.example.com/', dns: [], expect: 'unresolvable' },
  { url: 'https://bogus.example.com/', dns: ['not-an-ip'], expect: 'unresolvable' },
  { url: 'https://octal.example.com/', dns: ['0177.0.0.1'], expect: 'unresolvable' },

  // --- IPv4 classes (literals) -----------------------------------------------
  { url: 'https://0.0.0.0/', expect: 'unspecified' },
  { url: 'https://0/', expect: 'unspecified' },
  { url: 'https://0.1.2.3/', expect: 'this_network' },
  { url: 'https://10.0.0.1/', expect: 'private' },
  { url: 'https://172.16.0.1/', expect: 'private' },
  { url: 'https://172.31.255.255/', expect: 'private' },
  { url: 'https://192.168.1.1/', expect: 'private' },
  { url: 'https://127.0.0.1/', expect: 'loopback' },
  { url: 'https://127.255.255.254/', expect: 'loopback' },
  { url: 'https://169.254.169.254/latest/meta-data/', expect: 'link_local' },
  { url: 'https://100.64.0.1/', expect: 'cgnat' },
  { url: 'https://100.127.255.255/', expect: 'cgnat' },
  { url: 'https://192.0.0.8/', expect: 'ietf_reserved' },
  { url: 'https://192.0.2.10/', expect: 'documentation' },
  { url: 'https://198.51.100.7/', expect: 'documentation' },
  { url: 'https://203.0.113.9/', expect: 'documentation' },
  { url: 'https://198.18.0.1/', expect: 'benchmarking' },
  { url: 'https://198.19.255.255/', expect: 'benchmarking' },
  { url: 'https://224.0.0.1/', expect: 'multicast' },
  { url: 'https://239.255.255.250/', expect: 'multicast' },
  { url: 'https://240.0.0.1/', expect: 'reserved' },
  { url: 'https://255.255.255.254/', expect: 'reserved' },
  { url: 'https://255.255.255.255/', expect: 'broadcast' },

  // --- odd forms of 127.0.0.1 and friends --------------------------------------
  { url: 'https://2130706433/', expect: 'loopback', host: '127.0.0.1' },
  { url: 'https://0177.0.0.1/', expect: 'loopback', host: '127.0.0.1' },
  { url: 'https://0x7f.0.0.1/', expect: 'loopback', host: '127.0.0.1' },
  { url: 'https://0x7f000001/', expect: 'loopback', host: '127.0.0.1' },
  { url: 'https://127.1/', expect: 'loopback', host: '127.0.0.1' },
  { url: 'https://127.0.0.1./', expect: 'loopback' },
  { url: 'https://127.0.0.1../', expect: 'loopback' },
  { url: 'https://0x7f.0.0.1../', expect: 'loopback' },
  { url: 'https://%31%32%37.0.0.1/', expect: 'loopback' },
  { url: 'https://127.0.0.1:8443/', expect: 'loopback' },
  { url: 'https://example.com@127.0.0.1/', expect: 'loopback' },
  { url: 'https://user:pass@169.254.169.254/', expect: 'link_local' },
  { url: 'https://localhost/', dns: ['127.0.0.1', '::1'], expect: 'loopback', host: 'localhost' },
  { url: 'https://LOCALHOST./', dns: ['127.0.0.1'], expect: 'loopback', host: 'localhost' },

  // --- IPv6 classes (literals) -----------------------------------------------
  { url: 'https://[::]/', expect: 'unspecified' },
  { url: 'https://[::1]/', expect: 'loopback', host: '::1' },
  { url: 'https://[0:0:0:0:0:0:0:1]:8443/', expect: 'loopback', host: '::1', port: 8443 },
  { url: 'https://[::2]/', expect: 'ipv4_compatible' },
  { url: 'https://[::127.0.0.1]/', expect: 'ipv4_compatible' },
  { url: 'https://[::ffff:7f00:1]/', expect: 'ipv4_mapped_loopback' },
  { url: 'https://[::ffff:127.0.0.1]/', expect: 'ipv4_mapped_loopback' },
  { url: 'https://[::FFFF:127.0.0.1]/', expect: 'ipv4_mapped_loopback' },
  { url: 'https://[::ffff:169.254.169.254]/', expect: 'ipv4_mapped_link_local' },
  { url: 'https://[::ffff:a00:1]/', expect: 'ipv4_mapped_private' },
  { url: 'https://[::ffff:0.0.0.0]/', expect: 'ipv4_mapped_unspecified' },
  { url: 'https://[fc00::1]/', expect: 'unique_local' },
  { url: 'https://[fd12:3456::1]/', expect: 'unique_local' },
  { url: 'https://[fe80::1]/', expect: 'link_local' },
  { url: 'https://[FE80::ABCD]/', expect: 'link_local' },
  { url: 'https://[fec0::1]/', expect: 'site_local' },
  { url: 'https://[ff02::1]/', expect: 'multicast' },
  { url: 'https://[2001:db8::1]/', expect: 'documentation' },
  { url: 'https://[100::1]/', expect: 'discard' },
  { url: 'https://[64:ff9b::7f00:1]/', expect: 'nat64' },
  { url: `https://[64:ff9b::${PUBLIC4}]/`, expect: 'nat64' }, // blocked whatever it embeds
  { url: 'https://[64:ff9b:1::1]/', expect: 'nat64' },
  { url: 'https://[2002:7f00:1::]/', expect: '6to4_loopback' },
  { url: 'https://[2002:a9fe:a9fe::1]/', expect: '6to4_link_local' },
  { url: 'https://[2002:c0a8:101::1]/', expect: '6to4_private' },
  { url: 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', expect: 'teredo_loopback' }, // client 127.0.0.1
  { url: 'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', expect: 'teredo_private' }, // client 10.0.0.1
  { url: 'https://[2001:10::1]/', expect: 'reserved' },
  { url: 'https://[2001:20::1]/', expect: 'reserved' },
  { url: 'https://[4000::1]/', expect: 'reserved' },
  { url: 'https://[1::1]/', expect: 'reserved' },

  // --- names resolving to unsafe addresses ----------------------------------
  { url: 'https://mixed.example.com/', dns: [PUBLIC4, '10.0.0.5'], expect: 'private' },
  { url: 'https://mixed6.example.com/', dns: [PUBLIC6, 'fe80::1%eth0'], expect: 'link_local' },
  { url: 'https://meta.example.com/', dns: ['169.254.169.254'], expect: 'link_local' },
  { url: 'https://mapped.example.com/', dns: ['::ffff:127.0.0.1'], expect: 'ipv4_mapped_loopback' },
  { url: 'https://nat64.example.com/', dns: ['64:ff9b::a00:1'], expect: 'nat64' },
  { url: 'https://zero.example.com/', dns: ['0.0.0.0'], expect: 'unspecified' },
  { url: 'https://zero6.example.com/', dns: ['::'], expect: 'unspecified' },

  // --- allowedPrivateCidrs (dev/test) ----------------------------------------
  { url: 'https://127.0.0.1:3000/', allow: ['127.0.0.0/8'], expect: 'ok', host: '127.0.0.1', port: 3000 },
  { url: 'https://[::1]/', allow: ['::1/128'], expect: 'ok', host: '::1' },
  { url: 'https://[::ffff:127.0.0.1]/', allow: ['127.0.0.0/8'], expect: 'ok' },
  { url: 'https://localhost/', dns: ['127.0.0.1', '::1'], allow: ['127.0.0.0/8', '::1/128'], expect: 'ok' },
  { url: 'https://localhost/', dns: ['127.0.0.1', '::1'], allow: ['127.0.0.0/8'], expect: 'loopback' },
  { url: 'https://10.0.0.1/', allow: ['127.0.0.0/8'], expect: 'private' },
  { url: 'https://[::]/', allow: ['::1/128'], expect: 'unspecified' },
  { url: 'https://[::]/', allow: ['::/128'], expect: 'unspecified' },
  { url: 'https://[::]/', allow: ['::/0'], expect: 'unspecified' },
  { url: 'https://0.0.0.0/', allow: ['0.0.0.0/8'], expect: 'unspecified' },
  { url: 'https://zero6.example.com/', dns: ['::'], allow: ['::/0'], expect: 'unspecified' },
];

describe('checkWebhookUrl', () => {
  it('has a table of at least 70 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(70);
  });

  it.each(rows.map((row) => [row.url + (row.allow ? ` allow=${row.allow.join(',')}` : ''), row] as const))('%s', async (_label, row) => {
    const resolver = vi.fn(async (_hostname: string): Promise<string[]> => {
      if (row.dns === undefined) throw new Error('resolver must not be called for this row');
      if (row.dns === 'throw') throw new Error('getaddrinfo ENOTFOUND');
      return row.dns;
    });
    const result = await checkWebhookUrl(row.url, { resolver, allowedPrivateCidrs: row.allow ?? [] });

    if (row.expect === 'ok') {
      if (!result.ok) expect.fail(`expected ok, got ${result.unsafeClass}: ${result.message}`);
      if (row.host !== undefined) expect(result.hostname).toBe(row.host);
      expect(result.port).toBe(row.port ?? (result.url.port === '' ? 443 : Number(result.url.port)));
      expect(result.addresses.length).toBeGreaterThan(0);
      for (const a of result.addresses) {
        // Every returned address is safe or explicitly allowed.
        expect(classifyAddress(a) === null || isAddressInCidrs(a, row.allow ?? [])).toBe(true);
      }
    } else {
      if (result.ok) expect.fail(`expected ${row.expect}, got ok (${result.addresses.join(', ')})`);
      expect(result.unsafeClass).toBe(row.expect);
      expect(result.message).toMatch(/^webhook_url /);
    }

    // The resolver is asked exactly once for a name, and never for an IP literal or a rejected URL.
    if (row.dns === undefined) {
      expect(resolver).not.toHaveBeenCalled();
    } else {
      expect(resolver).toHaveBeenCalledTimes(1);
      if (row.host !== undefined) expect(resolver).toHaveBeenCalledWith(row.host);
    }
  });

  it('returns every resolved address for the dispatcher to connect to', async () => {
    const resolver = vi.fn(async () => [PUBLIC4, PUBLIC6]);
    const result = await checkWebhookUrl('https://Hooks.Example.com./x', { resolver });
    expect(result).toMatchObject({ ok: true, hostname: 'hooks.example.com', port: 443, addresses: [PUBLIC4, PUBLIC6] });
    expect(resolver).toHaveBeenCalledExactlyOnceWith('hooks.example.com');
  });

  it('explains a refusal in plain words, naming the address and the rule that refused it', async () => {
    const resolver = vi.fn(async () => ['127.0.0.1']);
    const result = await checkWebhookUrl('https://internal.example.com/', { resolver });
    expect(result).toEqual({
      ok: false,
      unsafeClass: 'loopback',
      message: 'webhook_url resolves to a loopback address (127.0.0.1, rule: 127.0.0.0/8); deliveries only go to public https endpoints',
      rule: '127.0.0.0/8 (loopback)',
      address: '127.0.0.1',
      allowable: true,
    });
    const literal = await checkWebhookUrl('https://169.254.169.254/', { resolver });
    expect(literal.ok === false && literal.message).toContain('link local address (169.254.169.254, rule: 169.254.0.0/16)');
    const mapped = await checkWebhookUrl('https://[::ffff:10.1.2.3]/', { resolver });
    expect(mapped.ok === false && mapped.rule).toBe('::ffff:0:0/96 carrying 10.0.0.0/8 (ipv4_mapped_private)');
    const scheme = await checkWebhookUrl('http://example.com/', { resolver });
    expect(scheme.ok === false && scheme.message).toContain('http scheme (rule: scheme must be https)');
    expect(scheme.ok === false && scheme.allowable).toBe(false);
    const unspecified = await checkWebhookUrl('https://0.0.0.0/', { resolver });
    expect(unspecified.ok === false && unspecified.allowable).toBe(false);
  });
});

describe('classifyAddress', () => {
  it.each([
    ['93.184.216.34', null],
    ['2606:4700::1111', null],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['fe80::1%eth0', 'link_local'],
    ['FE80::1%25', 'link_local'],
    ['FC00::1', 'unique_local'],
    ['::ffff:127.0.0.1', 'ipv4_mapped_loopback'],
    ['::ffff:7f00:1', 'ipv4_mapped_loopback'],
    ['::FFFF:C0A8:0101', 'ipv4_mapped_private'],
    ['::ffff:100.64.0.1', 'ipv4_mapped_cgnat'],
    ['::ffff:93.184.216.34', null],
    ['2002:c000:0201::', '6to4_documentation'],
    ['2002:5db8:d822::', null],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo_documentation'], // client 192.0.2.45
    ['2001:0:4136:e378:8000:63bf:a247:27dd', null],
    ['2001:2::1', 'benchmarking'],
    ['3fff::1', 'documentation'],
    ['fec0::1', 'site_local'],
    ['ff02::1', 'multicast'],
    ['not-an-ip', 'invalid_address'],
    ['0177.0.0.1', 'invalid_address'],
    ['', 'invalid_address'],
  ])('%s -> %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('parseCidrList', () => {
  it('parses a comma-separated list, trimming blanks', () => {
    expect(parseCidrList(' 127.0.0.0/8, ::1/128 ,,10.0.0.0/8 ')).toEqual(['127.0.0.0/8', '::1/128', '10.0.0.0/8']);
    expect(parseCidrList('')).toEqual([]);
    expect(parseCidrList('fd00::/8')).toEqual(['fd00::/8']);
    expect(parseCidrList('0.0.0.0/0')).toEqual(['0.0.0.0/0']);
  });

  const invalid = [
    '127.0.0.1', // no prefix length
    '127.0.0.0/33',
    '::1/129',
    'localhost/8',
    '127.0.0.0/-1',
    '127.0.0.0/8/8',
    '0177.0.0.0/8', // only canonical dotted quads
    'fe80::%eth0/64',
    '10.0.0.0/8,nope',
  ];
  it.each(invalid)('throws on %s', (list) => {
    expect(() => parseCidrList(list)).toThrow(/invalid CIDR/);
  });
});

describe('isAddressInCidrs', () => {
  it.each([
    ['127.0.0.1', ['127.0.0.0/8'], true],
    ['127.255.255.255', ['127.0.0.0/8'], true],
    ['128.0.0.1', ['127.0.0.0/8'], false],
    ['10.1.2.3', ['127.0.0.0/8', '10.0.0.0/8'], true],
    ['192.168.1.5', ['192.168.1.0/24'], true],
    ['192.168.2.5', ['192.168.1.0/24'], false],
    ['::1', ['::1/128'], true],
    ['::2', ['::1/128'], false],
    ['::1', ['127.0.0.0/8'], false],
    ['127.0.0.1', ['::1/128'], false],
    ['::ffff:127.0.0.1', ['127.0.0.0/8'], true],
    ['fd00::1', ['fc00::/7'], true],
    ['FE80::1%eth0', ['fe80::/10'], true],
    ['93.184.216.34', ['0.0.0.0/0'], true],
    ['93.184.216.34', [], false],
    ['not-an-ip', ['0.0.0.0/0'], false],
  ] as const)('%s in %j -> %s', (ip, cidrs, inside) => {
    expect(isAddressInCidrs(ip, cidrs)).toBe(inside);
  });
});
