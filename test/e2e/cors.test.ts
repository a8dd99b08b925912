import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAS_CHROMIUM, launchLoopbackChromium, warnIfNoChromium } from '../helpers/chromium.ts';
import { createTestServices, type TestServices } from '../helpers/db.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { buildApp } from '../../cli/build-app.ts';
import { listen } from '../../rest/server.ts';

/**
 * CORS through a real browser: headless Chromium opens a page served from another origin (another
 * loopback port) and calls the API with fetch. A bearer key and a JSON body make every call a
 * preflighted one (Fetch standard, "CORS-preflight request"), so Chromium itself judges our
 * preflight answer and the headers it may read.
 */

warnIfNoChromium('the CORS browser test');

/** A page server on its own port: a separate origin from the API's. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>front end</title><p>front end</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

interface BrowserCall {
  ok: boolean;
  status?: number;
  requestId?: string | null;
  replayed?: string | null;
  id?: string;
  failure?: string;
}

describe.skipIf(!HAS_CHROMIUM)('CORS from a page on another origin, in headless Chromium', () => {
  let t: TestServices;
  let api: Server;
  let apiOrigin: string;
  let allowed: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  let browser: Browser;
  let tenant: Tenant;

  beforeAll(async () => {
    allowed = await pageServer();
    other = await pageServer();
    t = await createTestServices('pglite', { config: { CORS_ALLOWED_ORIGINS: `${allowed.origin}, https://unused.example.test` } });
    tenant = await makeTenant(t.services.database.prisma);
    const listening = await listen(buildApp(t.services), 0, '127.0.0.1');
    api = listening.server;
    apiOrigin = `http://127.0.0.1:${listening.port}`;
    browser = await launchLoopbackChromium();
  });
  afterAll(async () => {
    await browser?.close();
    api?.close();
    allowed?.server.close();
    other?.server.close();
    await t?.close();
  });

  /** Opens `pageOrigin` and, from that page, posts the same draft twice with one Idempotency-Key. */
  async function draftTwiceFrom(pageOrigin: string): Promise<BrowserCall[]> {
    const page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
    const url = `${apiOrigin}/api/v1/companies/${tenant.companyId}/journal-entries`;
    const results = await page.evaluate(
      async ({ url, key }) => {
        const send = async () => {
          try {
            const response = await fetch(url, {
              method: 'POST',
              headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'cors-draft-1' },
              body: JSON.stringify({
                date: '2026-03-01',
                description: 'Kontorsmaterial',
                lines: [
                  { account: '6110', debit: 40000 },
                  { account: '1930', credit: 40000 },
                ],
              }),
            });
            const body = await response.json();
            return {
              ok: true,
              status: response.status,
              requestId: response.headers.get('X-Request-Id'),
              replayed: response.headers.get('Idempotent-Replayed'),
              id: body.data?.id,
            };
          } catch (error) {
            return { ok: false, failure: String(error) };
          }
        };
        return [await send(), await send()];
      },
      { url, key: tenant.key },
    );
    await page.close();
    return results;
  }

  it('lets an allowed origin write and read the exposed headers, a replay included', async () => {
    const [first, second] = await draftTwiceFrom(allowed.origin);
    expect(first).toMatchObject({ ok: true, status: 201, replayed: null });
    expect(first?.requestId).toMatch(/\S/);
    expect(second).toMatchObject({ ok: true, status: 201, replayed: 'true', id: first?.id });
    expect(await t.services.database.prisma.journalEntry.count({ where: { companyId: tenant.companyId } })).toBe(1);
  });

  it('refuses every other origin in the browser, before the request is sent', async () => {
    const before = await t.services.database.prisma.journalEntry.count({ where: { companyId: tenant.companyId } });
    const results = await draftTwiceFrom(other.origin);
    for (const result of results) expect(result).toMatchObject({ ok: false, failure: expect.stringMatching(/Failed to fetch/) });
    // The preflight was refused, so the POST itself never reached the server.
    expect(await t.services.database.prisma.journalEntry.count({ where: { companyId: tenant.companyId } })).toBe(before);
  });
});
