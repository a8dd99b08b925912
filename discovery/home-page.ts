import { API_VERSION } from '../domain/kernel/version.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { DISCOVERY_PATHS } from './discovery-paths.ts';

/**
 * What the base URL answers (`GET /`): where to go next, for a person in a browser (HTML) and for
 * a program (JSON). Every link comes from DISCOVERY_PATHS and PUBLIC_BASE_URL.
 */

/** The links, in the order a newcomer needs them; `key` names the JSON field. */
const LINKS = [
  { key: 'docs', path: DISCOVERY_PATHS.docsPage, text: 'Interactive API reference' },
  { key: 'openapi', path: DISCOVERY_PATHS.openapi, text: 'OpenAPI 3.1 document' },
  { key: 'llms_txt', path: DISCOVERY_PATHS.llmsTxt, text: 'llms.txt: the API summarised for language models and agents' },
  { key: 'mcp', path: DISCOVERY_PATHS.mcp, text: 'MCP endpoint (Streamable HTTP) for AI clients' },
  { key: 'errors', path: DISCOVERY_PATHS.errorsPage, text: 'Every error code, its cause and fix' },
  { key: 'api', path: API_PREFIX, text: 'API base (bearer key required)' },
] as const;

const TITLE = 'Accounting platform API';

export function homeJson(publicBaseUrl: string): Record<string, string> {
  return {
    name: TITLE,
    api_version: API_VERSION,
    ...Object.fromEntries(LINKS.map((link) => [link.key, `${publicBaseUrl}${link.path}`])),
  };
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Plain HTML with no script and no style, so the default CSP (default-src 'none') serves it as it
 * is. Links are relative, so they work at whichever origin the page was opened (localhost or
 * 127.0.0.1, as /docs does); the canonical URL is shown beside each.
 */
export function homeHtml(publicBaseUrl: string): string {
  const items = LINKS.map(
    (link) => `<li><a href="${escapeHtml(link.path)}">${escapeHtml(link.text)}</a> <code>${escapeHtml(`${publicBaseUrl}${link.path}`)}</code></li>`,
  );
  return [
    '<!doctype html>',
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${TITLE}</title></head>`,
    '<body>',
    `<h1>${TITLE}</h1>`,
    `<p>This is an API, not a web site. API version ${API_VERSION}. Start here:</p>`,
    `<ul>${items.join('')}</ul>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
