import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAS_CHROMIUM, launchLoopbackChromium, warnIfNoChromium } from '../../helpers/chromium.ts';
import type { ServerType } from '@hono/node-server';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { registry } from '../../../registry/index.ts';
import { listen } from '../../../rest/server.ts';
import { openApiPath } from '../../../discovery/openapi.ts';

/**
 * /docs in a real headless Chromium (Debian's /usr/bin/chromium): the Scalar reference must
 * render the operation list from our own bundle under the page's CSP, without touching any
 * host but the loopback server.
 */

warnIfNoChromium('the /docs rendering test');

describe.skipIf(!HAS_CHROMIUM)('/docs in headless Chromium', () => {
  let t: TestServices;
  let server: ServerType;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestServices('pglite');
    const listening = await listen(buildApp(t.services), 0, '127.0.0.1');
    server = listening.server;
    origin = `http://127.0.0.1:${listening.port}`;
    browser = await launchLoopbackChromium();
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
    await t?.close();
  });

  it('renders every operation of the registry, loading only our own origin, with no CSP violation', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    await page.getByText('List your companies').first().waitFor({ state: 'visible', timeout: 30_000 });
    for (const op of registry.operations) {
      await expect(page.getByText(op.summary, { exact: true }).first().isVisible(), op.summary).resolves.toBe(true);
    }
    expect(problems).toEqual([]);
    const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(foreign).toEqual([]);
    // The document with every body's example: openapi.json's own and each 201, error and event body besides.
    expect(requested).toContain(`${origin}${openApiPath('all')}`);
    await page.close();
  });

  it('opens the base URL as a page of links, and its first link leads to /docs', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    for (const name of ['Interactive API reference', 'OpenAPI 3.1 document', /^llms\.txt/])
      await expect(page.getByRole('link', { name }).isVisible()).resolves.toBe(true);
    // Rendering /docs is the test above; here, that the link leads there.
    const [docs] = await Promise.all([page.waitForResponse(`${origin}/docs`), page.getByRole('link', { name: 'Interactive API reference' }).click()]);
    expect(docs.status()).toBe(200);
    expect(problems).toEqual([]);
    await page.close();
  });
});
