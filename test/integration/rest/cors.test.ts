import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../../../http/cors.ts';
import { buildOpenApiDocument, RESPONSE_HEADERS_IN_INFO } from '../../../discovery/openapi.ts';

/**
 * The CORS answers header by header (the browser's view is test/e2e/cors.test.ts): preflight per
 * the Fetch standard (https://fetch.spec.whatwg.org/#http-cors-protocol), the refusal's error
 * envelope, and nothing added while no origin is allowed. The database plays no part: PGlite only.
 */

const PAGE = 'https://books.example.com';
const preflight = (origin: string, method: string, headers = 'authorization,content-type,idempotency-key') => ({
  headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
});

describe('CORS', () => {
  let open: TestServices;
  let closed: TestServices;
  let tenant: Tenant;
  let app: ReturnType<typeof createApp>;
  let plain: ReturnType<typeof createApp>;

  beforeAll(async () => {
    open = await createTestServices('pglite', { config: { CORS_ALLOWED_ORIGINS: PAGE } });
    closed = await createTestServices('pglite');
    tenant = await makeTenant(open.services.database.prisma);
    app = createApp(open.services, registry);
    plain = createApp(closed.services, registry);
  });
  afterAll(async () => {
    await open?.close();
    await closed?.close();
  });

  it('answers an allowed preflight with 204, the methods of that path and the headers a client sends', async () => {
    const response = await call(app, 'OPTIONS', `/api/v1/companies/${tenant.companyId}/journal-entries`, preflight(PAGE, 'POST'));
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(response.headers.get('access-control-allow-methods')?.split(', ').sort()).toEqual(['GET', 'POST']);
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
    );
    expect(response.headers.get('access-control-max-age')).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('refuses a preflight from another origin with the catalogue envelope naming the setting', async () => {
    for (const [target, origin] of [
      [app, 'https://evil.example.net'],
      [plain, PAGE],
    ] as const) {
      const response = await call(target, 'OPTIONS', '/api/v1/companies', preflight(origin, 'GET'));
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.body.error).toMatchObject({ code: 'CORS_ORIGIN_NOT_ALLOWED', status: 403 });
      expect(response.body.error.message).toContain(`The origin ${origin} is not in this server's CORS_ALLOWED_ORIGINS`);
      expect(response.body.error.recovery_hint).toMatch(/CORS_ALLOWED_ORIGINS/);
    }
    expect((await call(plain, 'OPTIONS', '/api/v1/companies', preflight(PAGE, 'GET'))).body.error.message).toContain('(empty: no browser origin is allowed)');
  });

  it('leaves an OPTIONS that is not a preflight, or names a method or path the API lacks, to 405 and 404', async () => {
    const bare = await call(app, 'OPTIONS', '/api/v1/companies');
    expect(bare.status).toBe(405);
    expect(bare.headers.get('allow')).toBe('GET');
    expect((await call(app, 'OPTIONS', '/api/v1/companies', preflight(PAGE, 'DELETE'))).status).toBe(405);
    expect((await call(app, 'OPTIONS', '/api/v1/nowhere', preflight(PAGE, 'GET'))).body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('lets an allowed origin read a response and its headers, errors included; Vary: Origin for every origin', async () => {
    const ok = await call(app, 'GET', '/api/v1/companies', { key: tenant.key, headers: { Origin: PAGE } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(ok.headers.get('access-control-expose-headers')).toBe(CORS_EXPOSED_HEADERS.join(', '));
    expect(ok.headers.get('vary')).toBe('Origin');
    // The frozen wrapped headers are still there.
    expect(ok.headers.get('x-request-id')).toBe(ok.body.meta.request_id);

    const denied = await call(app, 'GET', '/api/v1/companies', { headers: { Origin: PAGE } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(PAGE);

    const foreign = await call(app, 'GET', '/api/v1/companies', { key: tenant.key, headers: { Origin: 'https://evil.example.net' } });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('vary')).toBe('Origin');
  });

  it('adds nothing while no origin is allowed (the default)', async () => {
    const tenantOfPlain = await makeTenant(closed.services.database.prisma);
    const response = await call(plain, 'GET', '/api/v1/companies', { key: tenantOfPlain.key, headers: { Origin: PAGE } });
    expect(response.status).toBe(200);
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-') || name === 'vary')).toEqual([]);
  });

  it('exposes every response header openapi.json documents, on a response or in its info', () => {
    const document = buildOpenApiDocument(registry.operations, { publicBaseUrl: 'http://127.0.0.1:3000' });
    // Content-Length is CORS-safelisted: a browser reads it without being told.
    const onResponses = Object.keys((document.components as { headers: Record<string, unknown> }).headers).filter((name) => name !== 'Content-Length');
    for (const name of RESPONSE_HEADERS_IN_INFO) expect((document.info as { description: string }).description).toContain(`\`${name}`);
    const documented = [...onResponses, ...RESPONSE_HEADERS_IN_INFO];
    expect(onResponses.length).toBeGreaterThan(0);
    expect(CORS_EXPOSED_HEADERS).toEqual(expect.arrayContaining(documented));
  });
});
