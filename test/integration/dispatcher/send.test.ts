// End-to-end tests of one delivery attempt against real HTTPS receivers on loopback.
// Names resolve only through injected resolvers; nothing here touches real DNS or the network.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  boundedText,
  classifyError,
  createSender,
  cutAtUtf8Boundary,
  MAX_STORED_RESPONSE_BYTES,
  type SendRequest,
  type Sender,
  type SenderOptions,
} from '../../../dispatcher/send.ts';
import { verifySignature } from '../../../dispatcher/sign.ts';
import { createTransport, pinnedLookup } from '../../../dispatcher/transport.ts';
import type { Resolver } from '../../../domain/webhooks/url-safety.ts';
import { testResolver } from '../../helpers/db.ts';
import { startReceiver, type Receiver, type ReceiverOptions } from '../../helpers/https-receiver.ts';
import { ROOT } from '../../helpers/process.ts';
import { getTestPki } from '../../helpers/test-ca.ts';

const LOOPBACK_CIDRS = ['127.0.0.0/8', '::1/128'];
const SECRET = 'whsec_test_secret_ü';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);
const BODY = JSON.stringify({ id: 'evt_123', type: 'journal_entry.committed', data: { object: { amount: '12.50', memo: 'Kaffe ☕' } } });
/** Only the timeout test shortens the budget; everything else keeps the production default. */
const SHORT_TIMEOUT_MS = 300;

const pki = getTestPki();

const toClean: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(toClean.splice(0).map((c) => c.close()));
});

async function receiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const r = await startReceiver(options);
  toClean.push(r);
  return r;
}

function sender(overrides: Partial<SenderOptions> = {}): Sender {
  const s = createSender({
    urlPolicy: { resolver: testResolver, allowedPrivateCidrs: LOOPBACK_CIDRS },
    extraCaCerts: [pki.caCert],
    now: () => NOW,
    ...overrides,
  });
  toClean.push(s);
  return s;
}

function delivery(url: string, overrides: Partial<SendRequest> = {}): SendRequest {
  return { deliveryId: 'del_1', eventId: 'evt_123', eventType: 'journal_entry.committed', url, secret: SECRET, body: BODY, ...overrides };
}

/** A loopback port that was just free and now refuses connections. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('successful delivery', () => {
  it('POSTs the exact raw body, signed, with hostname SNI and Host, and records the answer', async () => {
    const r = await receiver({ handler: () => ({ status: 204, headers: { 'x-receiver': 'yes' } }) });
    const result = await sender().send(delivery(r.url('/hooks/in?src=test')));

    expect(result.result).toEqual({ kind: 'response', status: 204 });
    expect(result).toMatchObject({ responseStatus: 204, responseBody: '', errorClass: null, startedAt: NOW, finishedAt: NOW });
    expect(result.responseHeaders?.['x-receiver']).toBe('yes');

    expect(r.requests).toHaveLength(1);
    const seen = r.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hooks/in?src=test');
    expect(seen.body).toBe(BODY);
    expect(seen.headers.host).toBe(`localhost:${r.port}`);
    expect(seen.servername).toBe('localhost');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['user-agent']).toBe('AccountingWebhooks/1.0');
    expect(seen.headers['x-service-event-id']).toBe('evt_123');
    expect(seen.headers['x-service-event-type']).toBe('journal_entry.committed');
    expect(seen.headers['x-service-delivery-id']).toBe('del_1');
    const signature = seen.headers['x-service-signature'];
    expect(signature).toMatch(new RegExp(`^t=${NOW_SECONDS},v1=[0-9a-f]{64}$`));
    expect(verifySignature(signature as string, seen.body, SECRET, { now: () => NOW_SECONDS })).toEqual({ ok: true, timestamp: NOW_SECONDS });
    expect(verifySignature(signature as string, seen.body, 'other-secret', { now: () => NOW_SECONDS }).ok).toBe(false);
  });

  it('accepts a trailing-dot hostname, validating the certificate against the bare name', async () => {
    const r = await receiver();
    const result = await sender().send(delivery(`https://localhost.:${r.port}/dot`));
    expect(result.result).toEqual({ kind: 'response', status: 200 });
    expect(r.requests[0]!.servername).toBe('localhost');
  });

  it("takes X-Service-Event-Id from the payload's id when the delivery has no event id", async () => {
    const r = await receiver();
    await sender({ userAgent: 'Custom/2' }).send(delivery(r.url(), { eventId: null, body: '{"id":"evt_test_9","type":"ping"}' }));
    expect(r.requests[0]!.headers['x-service-event-id']).toBe('evt_test_9');
    expect(r.requests[0]!.headers['user-agent']).toBe('Custom/2');
  });

  it('captures response headers with lower-case names and repeated values joined', async () => {
    const r = await receiver({
      handler: () => ({
        status: 200,
        headers: { 'X-Request-Id': 'rq_1', 'Set-Cookie': ['a=1', 'b=2'], 'Content-Type': 'application/json' },
        body: '{"received":true}',
      }),
    });
    const result = await sender().send(delivery(r.url()));
    expect(result.responseBody).toBe('{"received":true}');
    expect(result.responseHeaders).toMatchObject({ 'x-request-id': 'rq_1', 'set-cookie': 'a=1, b=2', 'content-type': 'application/json' });
    for (const name of Object.keys(result.responseHeaders!)) expect(name).toBe(name.toLowerCase());
  });
});

describe('non-2xx answers', () => {
  it('500 is a response with its status and body', async () => {
    const r = await receiver({ handler: () => ({ status: 500, body: 'internal error' }) });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'response', status: 500 });
    expect(result).toMatchObject({ responseStatus: 500, responseBody: 'internal error', errorClass: null });
  });

  it('410 is a response with status 410', async () => {
    const r = await receiver({ handler: () => ({ status: 410, body: 'gone' }) });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'response', status: 410 });
  });

  it('does not follow redirects: a 302 is the answer and its target is never requested', async () => {
    const r = await receiver({
      handler: (req) => (req.url === '/start' ? { status: 302, headers: { location: '/target' } } : { status: 200, body: 'target' }),
    });
    const result = await sender().send(delivery(r.url('/start')));
    expect(result.result).toEqual({ kind: 'response', status: 302 });
    expect(result.responseHeaders?.location).toBe('/target');
    expect(r.requests.map((q) => q.url)).toEqual(['/start']);
  });
});

describe('timeouts and body limits', () => {
  it('a receiver that never answers times out', async () => {
    const r = await receiver({ handler: () => ({ hang: true }) });
    const result = await sender({ timeoutMs: SHORT_TIMEOUT_MS }).send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'timeout' });
    expect(result).toMatchObject({ errorClass: 'timeout', responseStatus: null, responseBody: null, responseHeaders: null });
    expect(r.requests).toHaveLength(1);
  });

  it('keeps only the first 4096 bytes of a 1 MB body', async () => {
    const huge = Buffer.alloc(1024 * 1024, 'x');
    const r = await receiver({ handler: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: huge }) });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'response', status: 200 });
    expect(result.errorClass).toBeNull();
    // Spec Limits: "Stored response body: 4096 bytes by the dispatcher".
    expect(Buffer.byteLength(result.responseBody!)).toBe(4096);
    expect(result.responseBody).toBe('x'.repeat(4096));
  });

  it('reads only the start of a 50 MB answer: the rest is never downloaded', async () => {
    const fifty = 50 * 1000 * 1000;
    const r = await receiver({ handler: () => ({ status: 200, stream: fifty }) });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'response', status: 200 });
    expect(Buffer.byteLength(result.responseBody!)).toBe(MAX_STORED_RESPONSE_BYTES);
    // The sender hung up after the first chunks; what the receiver got rid of is socket buffers,
    // a small fraction of the body.
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.bodyBytesWritten).toBeLessThan(fifty / 5);
  });

  it('a body that never ends is cut at the attempt deadline, not reset by every byte that arrives', async () => {
    const r = await receiver({ handler: () => ({ status: 200, trickle: true }) });
    const result = await sender({ timeoutMs: SHORT_TIMEOUT_MS }).send(delivery(r.url()));
    // A byte every 20 ms would defeat an idle timeout; the whole-attempt deadline still ends it.
    expect(r.bodyBytesWritten).toBeGreaterThan(0);
    expect(result).toMatchObject({ result: { kind: 'response', status: 200 }, errorClass: 'timeout' });
  });

  it.each([
    ['2-byte é', 'é'],
    ['3-byte €', '€'],
    ['4-byte 😀', '😀'],
  ])('cuts before a %s that straddles the 4096-byte limit', async (_label, char) => {
    const charBytes = Buffer.byteLength(char);
    const prefix = 'a'.repeat(MAX_STORED_RESPONSE_BYTES - 1); // the character starts at byte 4095
    const r = await receiver({ handler: () => ({ status: 200, body: `${prefix}${char}tail` }) });
    const result = await sender().send(delivery(r.url()));
    expect(charBytes).toBeGreaterThan(1);
    expect(result.responseBody).toBe(prefix);
  });

  it('keeps a multi-byte character that ends exactly at the limit', async () => {
    const prefix = 'a'.repeat(MAX_STORED_RESPONSE_BYTES - 3);
    const r = await receiver({ handler: () => ({ status: 200, body: `${prefix}€more` }) });
    const result = await sender().send(delivery(r.url()));
    expect(result.responseBody).toBe(`${prefix}€`);
    expect(Buffer.byteLength(result.responseBody!)).toBe(MAX_STORED_RESPONSE_BYTES);
  });

  it('boundedText never exceeds the limit, even for invalid UTF-8 or NULs', () => {
    const invalid = Buffer.alloc(10, 0xff); // each byte decodes to U+FFFD (3 bytes)
    expect(Buffer.byteLength(boundedText(invalid, 10))).toBeLessThanOrEqual(10);
    expect(boundedText(Buffer.from('a\u0000b'), 10)).toBe('ab');
    expect(cutAtUtf8Boundary(Buffer.from('aé'), 2).toString()).toBe('a');
  });
});

describe('connection and TLS failures', () => {
  it('connection refused is a transport error ECONNREFUSED', async () => {
    const port = await closedPort();
    const result = await sender().send(delivery(`https://localhost:${port}/`));
    expect(result.result).toEqual({ kind: 'transport_error', errorClass: 'ECONNREFUSED' });
    expect(result.errorClass).toBe('ECONNREFUSED');
  });

  it('a certificate from the test CA is rejected unless that CA is an extra CA', async () => {
    const r = await receiver();
    const untrusted = await sender({ extraCaCerts: [] }).send(delivery(r.url()));
    expect(untrusted.result).toEqual({ kind: 'transport_error', errorClass: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(r.requests).toHaveLength(0);

    const trusted = await sender().send(delivery(r.url()));
    expect(trusted.result).toEqual({ kind: 'response', status: 200 });
  });

  it('a certificate for another hostname is a transport error', async () => {
    const r = await receiver({ tls: pki.wrongName });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'transport_error', errorClass: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(r.requests).toHaveLength(0);
  });

  it('an expired certificate is a transport error', async () => {
    const r = await receiver({ tls: pki.expired });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'transport_error', errorClass: 'CERT_HAS_EXPIRED' });
    expect(r.requests).toHaveLength(0);
  });

  it('a self-signed certificate is a transport error', async () => {
    const r = await receiver({ tls: pki.selfSigned });
    const result = await sender().send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'transport_error', errorClass: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('a sender that is closed refuses to send', async () => {
    const r = await receiver();
    const s = sender();
    await s.close();
    const result = await s.send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'transport_error', errorClass: 'sender_closed' });
    expect(r.requests).toHaveLength(0);
  });
});

describe('URL safety at send time', () => {
  it('loopback without allowedPrivateCidrs is url_unsafe:loopback and nothing connects', async () => {
    const r = await receiver();
    const result = await sender({ urlPolicy: { resolver: testResolver, allowedPrivateCidrs: [] } }).send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'url_unsafe', unsafeClass: 'loopback' });
    expect(result).toMatchObject({ errorClass: 'url_unsafe:loopback', responseStatus: null });
    expect(r.requests).toHaveLength(0);
    expect(r.tlsConnections).toBe(0);
  });

  it('a non-https URL is refused without connecting', async () => {
    const result = await sender().send(delivery('http://localhost:1/'));
    expect(result.result).toEqual({ kind: 'url_unsafe', unsafeClass: 'scheme' });
  });

  it('re-resolves per send: a DNS answer that turns private is refused before connecting', async () => {
    const r = await receiver();
    const answers = [['127.0.0.1'], ['10.0.0.7']];
    const calls: string[] = [];
    const rebinding: Resolver = async (hostname) => {
      calls.push(hostname);
      return answers[Math.min(calls.length - 1, answers.length - 1)]!;
    };
    const s = sender({ urlPolicy: { resolver: rebinding, allowedPrivateCidrs: LOOPBACK_CIDRS } });

    const first = await s.send(delivery(r.url()));
    expect(first.result).toEqual({ kind: 'response', status: 200 });
    const second = await s.send(delivery(r.url()));
    expect(second.result).toEqual({ kind: 'url_unsafe', unsafeClass: 'private' });
    expect(second.errorClass).toBe('url_unsafe:private');
    expect(calls).toEqual(['localhost', 'localhost']);
    expect(r.requests).toHaveLength(1);
    expect(r.tlsConnections).toBe(1);
  });

  it('a resolver that never answers is bounded by the timeout', async () => {
    const stuck: Resolver = () => new Promise(() => {});
    const result = await sender({ timeoutMs: SHORT_TIMEOUT_MS, urlPolicy: { resolver: stuck, allowedPrivateCidrs: LOOPBACK_CIDRS } }).send(
      delivery('https://localhost:1/'),
    );
    expect(result.result).toEqual({ kind: 'timeout' });
  });
});

describe('connections', () => {
  it('two sends to the same receiver share one TLS connection', async () => {
    const r = await receiver();
    const s = sender();
    const first = await s.send(delivery(r.url('/a')));
    const second = await s.send(delivery(r.url('/b'), { deliveryId: 'del_2' }));
    expect([first.result, second.result]).toEqual([
      { kind: 'response', status: 200 },
      { kind: 'response', status: 200 },
    ]);
    expect(r.requests.map((q) => q.url)).toEqual(['/a', '/b']);
    expect(r.tlsConnections).toBe(1);
    expect(r.requests.map((q) => q.connection)).toEqual([1, 1]);
  });

  it('delivers to an IPv6 receiver on ::1 when DNS answers ::1', async () => {
    const r = await receiver({ host: '::1' });
    const v6Only: Resolver = async (hostname) => (hostname === 'localhost' ? ['::1'] : []);
    const result = await sender({ urlPolicy: { resolver: v6Only, allowedPrivateCidrs: LOOPBACK_CIDRS } }).send(delivery(r.url()));
    expect(result.result).toEqual({ kind: 'response', status: 200 });
    expect(r.requests[0]!.headers.host).toBe(`localhost:${r.port}`);
    expect(r.requests[0]!.servername).toBe('localhost');
  });

  it('delivers to an IPv6 literal URL, checking the certificate against the IP', async () => {
    const r = await receiver({ host: '::1' });
    const result = await sender().send(delivery(`https://[::1]:${r.port}/v6`));
    expect(result.result).toEqual({ kind: 'response', status: 200 });
    expect(r.requests[0]!.url).toBe('/v6');
    expect(r.requests[0]!.servername).toBe(false); // no SNI for IP literals
  });
});

describe('transport', () => {
  it('pinnedLookup answers both the single and the all:true shapes', () => {
    const lookup = pinnedLookup('::1');
    const single: unknown[] = [];
    lookup('localhost', {}, (...args) => single.push(...args));
    expect(single).toEqual([null, '::1', 6]);
    const all: unknown[] = [];
    lookup('localhost', { all: true }, (...args) => all.push(...args));
    expect(all).toEqual([null, [{ address: '::1', family: 6 }]]);
    expect(() => pinnedLookup('localhost')).toThrow(TypeError);
  });

  it('keys agents by origin and address, evicting and closing the oldest beyond the bound', async () => {
    const transport = createTransport({ maxAgents: 2 });
    toClean.push(transport);
    const a = transport.agentFor('https://a.example.com', '93.184.216.34');
    expect(transport.agentFor('https://a.example.com', '93.184.216.34')).toBe(a);
    const b = transport.agentFor('https://a.example.com', '93.184.216.35');
    expect(b).not.toBe(a);
    transport.agentFor('https://a.example.com', '93.184.216.34'); // a becomes most recent
    transport.agentFor('https://c.example.com', '93.184.216.34'); // evicts b
    expect(transport.size).toBe(2);
    expect(b.closed).toBe(true);
    expect(a.closed).toBe(false);
    await transport.close();
    expect(a.closed).toBe(true);
    expect(() => transport.agentFor('https://a.example.com', '93.184.216.34')).toThrow(/closed/);
  });

  it('classifyError maps timeouts, codes and causes', () => {
    expect(classifyError(new DOMException('t', 'TimeoutError'))).toBe('timeout');
    expect(classifyError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))).toBe('timeout');
    expect(classifyError(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }))).toBe('ECONNRESET');
    expect(classifyError(Object.assign(new Error('x'), { code: 'not a code; DROP TABLE' }))).toBe('unknown');
    expect(classifyError('string')).toBe('unknown');
  });
});

describe('trust store', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'send-ca-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Extra CAs are added on top of the default store, so NODE_EXTRA_CA_CERTS (read at process
  // start) must still work for a sender created without extraCaCerts: check in a child process.
  it('still honours NODE_EXTRA_CA_CERTS', async () => {
    const r = await receiver();
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, pki.caCert);
    const script = join(dir, 'send.mts'); // .mts: ESM, for top-level await
    writeFileSync(
      script,
      `import { createSender } from ${JSON.stringify(join(ROOT, 'dispatcher/send.ts'))};
const sender = createSender({ urlPolicy: { resolver: async () => ['127.0.0.1'], allowedPrivateCidrs: ['127.0.0.0/8'] } });
const result = await sender.send({ deliveryId: 'd', eventId: 'e', eventType: 't', url: ${JSON.stringify(r.url('/env'))}, secret: 's', body: '{}' });
await sender.close();
console.log(JSON.stringify(result.result));
`,
    );
    const run = (extraCa: string | undefined) =>
      promisify(execFile)(join(ROOT, 'node_modules/.bin/tsx'), [script], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...(extraCa && { NODE_EXTRA_CA_CERTS: extraCa }) },
      });
    const withCa = await run(caFile);
    expect(JSON.parse(withCa.stdout.trim())).toEqual({ kind: 'response', status: 200 });
    const withoutCa = await run(undefined);
    expect(JSON.parse(withoutCa.stdout.trim())).toEqual({ kind: 'transport_error', errorClass: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(r.requests.map((q) => q.url)).toEqual(['/env']);
  });
});
