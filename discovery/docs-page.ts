import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { Scalar } from '@scalar/hono-api-reference';
import { DISCOVERY_PATHS } from './discovery-paths.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { openApiPath } from './openapi.ts';

/**
 * The interactive API reference at /docs: @scalar/hono-api-reference renders the page, and the
 * Scalar browser bundle is served by us from node_modules (no CDN), so the page works under a
 * CSP that allows scripts from our own origin plus the page's one inline bootstrap script (by
 * hash). The API's `default-src 'none'` would block it, so /docs has a CSP of its own.
 */

/** The package and file of the browser bundle the Scalar page loads. */
export const SCALAR_BUNDLE_SPECIFIER = '@scalar/api-reference/browser/standalone.js';

export interface ScalarBundle {
  /** Content-addressed, so it can be cached as immutable. */
  path: string;
  body: Buffer;
}

/** Reads the bundle once; null when the package is not installed (the page then cannot render). */
export function loadScalarBundle(): ScalarBundle | null {
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve(SCALAR_BUNDLE_SPECIFIER);
  } catch {
    return null;
  }
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path: `${DISCOVERY_PATHS.docsAssets}/scalar-${hash}.js`, body };
}

/** Where Scalar's bootstrap starts its configuration object; PAGE_ORIGIN is inserted right after it. */
const BOOTSTRAP = "Scalar.createApiReference('#app', {";
/** Relative servers are resolved against this at run time: the page's own origin, never a Host header. */
const PAGE_ORIGIN = '"baseServerURL": window.location.origin,';

function withPageOrigin(html: string): string {
  // Fail loudly if a Scalar upgrade changes its bootstrap: /docs must not silently lose "Test request".
  if (!html.includes(BOOTSTRAP)) throw new Error(`the Scalar page no longer contains ${BOOTSTRAP}`);
  return html.replace(BOOTSTRAP, `${BOOTSTRAP}\n        ${PAGE_ORIGIN}`);
}

export interface DocsPage {
  html: string;
  contentSecurityPolicy: string;
}

/** Renders the page once through the Scalar middleware and derives its CSP from the result. */
export async function renderDocsPage(bundlePath: string): Promise<DocsPage> {
  const renderer = new Hono().get(
    '/',
    Scalar({
      pageTitle: 'Accounting Service API reference',
      // Same origin, relative: the page never needs to know a host name.
      // The document with every body's example (openapi.json itself keeps those the spec asks for).
      url: openApiPath('all'),
      cdn: bundlePath,
      // Fonts would come from Scalar's font CDN; the system fonts need no network.
      withDefaultFonts: false,
      // No stand-alone request client button: it would have people paste live API keys into a web
      // page, and it can route requests through Scalar's proxy, which the page's CSP refuses anyway.
      hideClientButton: true,
      // "Test request" goes to the API on the origin the page was opened at (made absolute by
      // PAGE_ORIGIN below): localhost and 127.0.0.1 are different origins, and a request to the
      // other one would be cross-origin, refused by the page's `connect-src 'self'`.
      servers: [{ url: API_PREFIX, description: 'This server (the origin this page was opened at)' }],
      // Every group open, so the operation list is visible without clicking.
      defaultOpenAllTags: true,
    }),
  );
  const html = withPageOrigin(await (await renderer.request('/')).text());
  const inlineScripts = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
  const hashes = inlineScripts.map((script) => `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`);
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`,
    // The reference injects <style> elements at run time, which hashes cannot cover.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
