import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, makeUser, type Tenant } from '../../helpers/factories.ts';
import { postMcp } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { revokeApiKey } from '../../../domain/apikeys/keys.ts';
import type { Services } from '../../../domain/context.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } },
};
const PING = { jsonrpc: '2.0', id: 2, method: 'ping' };

describe.each(DB_TARGETS)('MCP over Streamable HTTP: transport, auth and DNS rebinding (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  const appWith = (config: Partial<Services['config']>) => createApp({ ...t.services, config: { ...t.services.config, ...config } }, registry, [mountMcp]);

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry, [mountMcp]);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  it('initializes statelessly in JSON mode and answers ping, with the security headers and a request id', async () => {
    const init = await postMcp(app, INITIALIZE, { key: tenant.key });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/^application\/json/);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(init.body.result).toMatchObject({
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'accounting-platform' },
      instructions: expect.stringMatching(/never guess ids/),
    });
    for (const [name, value] of Object.entries({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })) {
      expect(init.headers.get(name), name).toBe(value);
    }
    expect(init.headers.get('x-request-id')).toMatch(/^req_/);
    const ping = await postMcp(app, PING, { key: tenant.key, headers: { 'mcp-protocol-version': '2025-11-25' } });
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('answers 401 with WWW-Authenticate and the catalogue body for missing, malformed, unknown and revoked keys', async () => {
    const userId = await makeUser(t.services.database.prisma);
    const revoked = await makeKey(t.services.database.prisma, userId);
    await revokeApiKey(t.services.database.prisma, revoked.id, new Date());
    for (const authorization of [undefined, 'Basic abc', 'Bearer', `Bearer sk_test_${'A'.repeat(32)}`, `Bearer ${revoked.key}`]) {
      const response = await postMcp(app, INITIALIZE, { headers: authorization ? { authorization } : {} });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(response.body.error).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, recovery_hint: expect.any(String) });
    }
  });

  it('refuses foreign Host and Origin headers with 403 before looking at the key', async () => {
    for (const headers of <Record<string, string>[]>[
      { host: 'evil.example.com' },
      { host: 'localhost.evil.example.com:3000' },
      { origin: 'http://evil.example.com' },
      { origin: 'null' },
      { host: 'localhost:3000', origin: 'https://api.example.test.evil.example.com' },
    ]) {
      const response = await postMcp(app, INITIALIZE, { key: tenant.key, headers });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.body.error.code).toBe(-32000);
    }
    // Refused before authentication: an attacker's page learns nothing about keys.
    expect((await postMcp(app, INITIALIZE, { headers: { host: 'evil.example.com' } })).status).toBe(403);
  });

  it('accepts loopback hosts on any port, the public base URL, and configured extra hosts and origins', async () => {
    for (const headers of <Record<string, string>[]>[
      { host: 'localhost' },
      { host: 'localhost:8123', origin: 'http://localhost:8123' },
      { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:5173' },
      { host: '[::1]:3000', origin: 'http://[::1]:3000' },
      { host: 'api.example.test', origin: 'https://api.example.test' },
    ]) {
      const response = await postMcp(app, INITIALIZE, { key: tenant.key, headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
    expect((await postMcp(app, INITIALIZE, { key: tenant.key, headers: { host: 'mcp.internal:8443' } })).status).toBe(403);
    const configured = appWith({ MCP_ALLOWED_HOSTS: 'mcp.internal:8443, gateway.internal', MCP_ALLOWED_ORIGINS: 'https://console.example.org' });
    for (const headers of <Record<string, string>[]>[{ host: 'mcp.internal:8443' }, { host: 'gateway.internal:9000', origin: 'https://console.example.org' }]) {
      expect((await postMcp(configured, INITIALIZE, { key: tenant.key, headers })).status, JSON.stringify(headers)).toBe(200);
    }
    for (const headers of <Record<string, string>[]>[{ host: 'mcp.internal:9999' }, { host: 'localhost', origin: 'https://console.example.org:444' }]) {
      expect((await postMcp(configured, INITIALIZE, { key: tenant.key, headers })).status, JSON.stringify(headers)).toBe(403);
    }
  });

  it('answers GET and DELETE with 405 and Allow: POST (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const response = await postMcp(app, null, { key: tenant.key, method, headers: { accept: 'text/event-stream' } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('rejects unknown toolsets and variants with 400 naming the accepted values', async () => {
    const toolsets = await postMcp(app, INITIALIZE, { key: tenant.key, query: '?toolsets=companies,nope' });
    expect(toolsets.status).toBe(400);
    expect(toolsets.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'toolsets' }] });
    expect(toolsets.body.error.valid_alternatives).toEqual(expect.arrayContaining(['companies', 'webhooks', 'all']));
    const variant = await postMcp(app, INITIALIZE, { key: tenant.key, query: '?variant=camel' });
    expect(variant.status).toBe(400);
    expect(variant.body.error.valid_alternatives).toEqual(['namespaced', 'flat']);
    expect((await postMcp(app, INITIALIZE, { key: tenant.key, query: '?read_only=maybe' })).status).toBe(400);
  });

  it('keeps protocol problems protocol errors: malformed JSON, unknown methods', async () => {
    const headers = { 'mcp-protocol-version': '2025-11-25' };
    const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
    const malformed = await app.request(
      'http://localhost/mcp',
      {
        method: 'POST',
        body: '{not json',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tenant.key}` },
      },
      env as never,
    );
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe(-32700);
    const unknown = await postMcp(app, { jsonrpc: '2.0', id: 3, method: 'resources/list' }, { key: tenant.key, headers });
    expect(unknown.body.error.code).toBe(-32601);
  });

  it('logs denials with a truncated address, never the key', async () => {
    t.logs.lines.length = 0;
    await postMcp(app, INITIALIZE, { headers: { 'user-agent': 'mcp-denial/1.0' } });
    await postMcp(app, INITIALIZE, { key: tenant.key, headers: { host: 'evil.example.com' } });
    const denials = t.logs.lines.filter((line) => line.event === 'request_denied' && line.surface === 'mcp');
    expect(denials.map((d) => d.reason)).toEqual(['missing_token', 'host_or_origin']);
    expect(denials[0]).toMatchObject({ client: '203.0.113.0/24', user_agent: 'mcp-denial/1.0' });
    expect(t.logs.raw.join('\n')).not.toContain(tenant.key);
  });
});
