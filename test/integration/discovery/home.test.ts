import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { call } from '../../helpers/http.ts';
import { buildApp } from '../../../cli/build-app.ts';

/**
 * `GET /`, the base URL a person opens first: a browser (Accept: text/html…) gets a page of links,
 * a program (Accept: application/json, `*\/*` or none) the same links as JSON; each link is served.
 * Content negotiation per RFC 9110 §12.5.1. The database plays no part: PGlite only.
 */

const BASE = 'https://api.example.test';
// What Chromium sends when it navigates to a page.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

describe('GET /', () => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  beforeAll(async () => {
    t = await createTestServices('pglite');
    app = buildApp(t.services);
  });
  afterAll(async () => t?.close());

  it('gives a browser an HTML page linking /docs, llms.txt and openapi.json, under the default CSP', async () => {
    const page = await call(app, 'GET', '/', { headers: { Accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('vary')).toBe('Accept');
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    // Relative links (they work at whichever origin the page was opened); the canonical URL beside each.
    for (const path of ['/docs', '/llms.txt', '/api/v1/openapi.json', '/mcp']) {
      expect(page.text).toContain(`<a href="${path}">`);
      expect(page.text).toContain(`<code>${BASE}${path}</code>`);
    }
    expect(page.text).not.toMatch(/<script|<style/);
  });

  it('gives a program the same links as JSON, for Accept: application/json, */* and none; each link answers', async () => {
    for (const accept of ['application/json', '*/*', undefined, 'text/html;q=0.5, application/json']) {
      const response = await call(app, 'GET', '/', accept === undefined ? {} : { headers: { Accept: accept } });
      expect(response.status, accept).toBe(200);
      expect(response.headers.get('content-type'), accept).toMatch(/^application\/json/);
      expect(response.body, accept).toMatchObject({
        docs: `${BASE}/docs`,
        openapi: `${BASE}/api/v1/openapi.json`,
        llms_txt: `${BASE}/llms.txt`,
        mcp: `${BASE}/mcp`,
        errors: `${BASE}/docs/errors`,
        api: `${BASE}/api/v1`,
      });
    }
    const { body } = await call(app, 'GET', '/');
    for (const key of ['docs', 'openapi', 'llms_txt', 'errors']) {
      expect((await call(app, 'GET', new URL(body[key]).pathname)).status, key).toBe(200);
    }
  });

  it('answers other methods on / with 405 and Allow: GET', async () => {
    const response = await call(app, 'POST', '/', { body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });
});
