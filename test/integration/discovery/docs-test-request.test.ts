import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerType } from '@hono/node-server';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { listen } from '../../../rest/server.ts';

/**
 * /docs "Test request" must reach the API whether the page was opened at localhost or 127.0.0.1.
 * Those are two origins; the page's CSP allows `connect-src 'self'` only, so the reference must
 * send its requests to the origin it was opened at, not to PUBLIC_BASE_URL's. The page's own
 * bootstrap script runs here against a stand-in Scalar that records its configuration; the
 * request it would send then goes to the real server over both host names.
 */

interface ScalarConfiguration {
  url: string;
  baseServerURL?: string;
  servers?: { url: string }[];
}

/** Runs the page's inline bootstrap as a browser at `origin` would, returning what Scalar receives. */
function bootstrapConfiguration(html: string, origin: string): ScalarConfiguration {
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
  expect(inline).toHaveLength(1);
  let received: ScalarConfiguration | undefined;
  const Scalar = { createApiReference: (_selector: string, configuration: ScalarConfiguration) => (received = configuration) };
  runInNewContext(inline[0] as string, { Scalar, window: { location: { origin } } });
  if (!received) throw new Error('the page never called Scalar.createApiReference');
  return received;
}

/** Scalar's rule for a relative server: prefixed with baseServerURL (oas-utils getServersFromOpenApiDocument). */
const effectiveServer = (configuration: ScalarConfiguration): string => {
  const server = configuration.servers?.[0]?.url ?? '';
  return server.startsWith('/') && configuration.baseServerURL ? `${configuration.baseServerURL.replace(/\/$/, '')}${server}` : server;
};

describe('/docs "Test request" on localhost and 127.0.0.1', () => {
  let t: TestServices;
  let server: ServerType;
  let port: number;
  let tenant: Tenant;

  beforeAll(async () => {
    // PUBLIC_BASE_URL names 127.0.0.1, as the default does; the page is opened at both names.
    t = await createTestServices('pglite', { config: { PUBLIC_BASE_URL: 'http://127.0.0.1:3000' } });
    tenant = await makeTenant(t.services.database.prisma);
    const listening = await listen(buildApp(t.services), 0, '127.0.0.1');
    server = listening.server;
    port = listening.port;
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  it.each(['localhost', '127.0.0.1'])('opened at http://%s sends its requests to that same origin, and they answer', async (host) => {
    const origin = `http://${host}:${port}`;
    const page = await fetch(`${origin}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self'");

    const configuration = bootstrapConfiguration(await page.text(), origin);
    const server = effectiveServer(configuration);
    expect(new URL(server).origin).toBe(origin); // same origin: allowed by connect-src 'self'
    expect(server).toBe(`${origin}/api/v1`);

    // What "Test request" sends for "List your companies", with the key pasted into the page.
    const response = await fetch(`${server}/companies`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(response.status).toBe(200);
    expect((await response.json()).data.companies.map((c: { id: string }) => c.id)).toEqual([tenant.companyId]);
  });
});
