import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { postMcp } from '../../helpers/mcp-client.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { listen } from '../../../rest/server.ts';
import { registry } from '../../../registry/index.ts';
import { fullPath } from '../../../discovery/operation-traits.ts';
import { MAX_BODY_BYTES } from '../../../registry/body-limit.ts';

/** Faults found by hostile testing (issue 9), each through the real app. */

const CHUNK = 64 * 1024;

/** A request body that counts how much the server pulls; it would go on for `total` bytes. */
function countingBody(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(CHUNK).fill(0x20); // spaces: valid JSON whitespace, so only size can fail
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += CHUNK;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

describe.each(DB_TARGETS)('hostile requests (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestServices(target);
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  describe('request bodies are read as a stream under one limit', () => {
    it('stops reading a 50 MB chunked body at the limit and answers 413 in the envelope', async () => {
      const body = countingBody(50 * 1000 * 1000);
      const response = await app.request(
        `/api/v1/companies/${tenant.companyId}`,
        // No Content-Length: the size is known only as the bytes arrive.
        {
          method: 'PATCH',
          headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
          body: body.stream,
          duplex: 'half',
        } as RequestInit,
        { incoming: { socket: { remoteAddress: '203.0.113.9' } } } as never,
      );
      expect(response.status).toBe(413);
      expect((await response.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
      // Read no further than the chunk that crossed the limit (plus one the stream may queue ahead).
      expect(body.pulled()).toBeLessThanOrEqual(MAX_BODY_BYTES + 2 * CHUNK);
    });

    it('refuses a declared Content-Length over the limit before reading, and accepts a body just under it', async () => {
      const declared = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, {
        key: tenant.key,
        body: `{"name":"${'x'.repeat(MAX_BODY_BYTES)}"}`,
      });
      expect(declared.status).toBe(413);
      const padded = `{"name":"Padded AB"}${' '.repeat(MAX_BODY_BYTES - 40)}`;
      const fits = await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body: padded });
      expect(fits.status, fits.text).toBe(200);
    });

    it('answers a chunked body over the limit with 413 over a real socket', async () => {
      const { server, port } = await listen(app, 0, '127.0.0.1');
      try {
        const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'PATCH',
              path: `/api/v1/companies/${tenant.companyId}`,
              headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
            },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
            },
          );
          req.on('error', reject);
          // Keep sending until the server answers; it must answer long before 64 MiB.
          const chunk = Buffer.alloc(CHUNK, 0x20);
          let sent = 0;
          let answered = false;
          req.on('response', () => (answered = true));
          const pump = (): void => {
            while (!answered && sent < 64 * MAX_BODY_BYTES) {
              sent += CHUNK;
              if (!req.write(chunk)) return void req.once('drain', pump);
            }
            req.end();
          };
          pump();
        });
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('a trailing slash', () => {
    it('routes like the bare path on every operation, so a 405 never contradicts its own Allow', async () => {
      const bare = await call(app, 'GET', '/api/v1/companies', { key: tenant.key });
      const slashed = await call(app, 'GET', '/api/v1/companies/', { key: tenant.key });
      expect(slashed.status).toBe(200);
      expect(slashed.body.data).toEqual(bare.body.data);
      const wrong = await call(app, 'POST', '/api/v1/companies/', { key: tenant.key });
      expect(wrong.status).toBe(405);
      for (const method of (wrong.headers.get('allow') ?? '').split(', ')) {
        expect((await call(app, method, '/api/v1/companies/', { key: tenant.key })).status).not.toBe(405);
      }
      // Generated from the registry: no operation's path answers 404/405 to its own method with a slash.
      for (const op of registry.operations) {
        const path = `${fullPath(op)
          .replace(/\{companyId\}/g, tenant.companyId)
          .replace(/\{capabilityId\}/g, 'listCompanies')
          .replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000000')}/`;
        const response = await call(app, op.method, path, { key: tenant.key });
        expect(response.status, `${op.id} ${path}: ${response.text}`).not.toBe(405);
        expect(response.body?.error?.message ?? '', op.id).not.toMatch(/No such route/);
      }
    });
  });

  describe('the denial log', () => {
    it('caps logged header values, on REST and on /mcp', async () => {
      const userAgent = `agent/${'A'.repeat(4096)}`;
      const rest = await call(app, 'GET', '/api/v1/companies', { headers: { 'user-agent': userAgent } });
      expect(rest.status).toBe(401);
      const mcp = await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { headers: { 'user-agent': userAgent } });
      expect(mcp.status).toBe(401);
      const denials = t.logs.lines.filter((line) => line.event === 'request_denied' && String(line.user_agent).startsWith('agent/'));
      expect(denials.map((line) => line.surface ?? 'rest').sort()).toEqual(['mcp', 'rest']);
      for (const line of denials) {
        expect(String(line.user_agent).length).toBeLessThanOrEqual(300);
        expect(String(line.user_agent)).toMatch(/^agent\/A+…\[3846 more\]$/);
      }
    });
  });
});
