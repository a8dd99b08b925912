import { createHash } from 'node:crypto';
import { ERROR_CODES, type ErrorCode } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG } from '../registry/error-catalog.ts';
import { errorsOf } from '../registry/errors-of.ts';
import { errorExample } from './examples.ts';
import type { DescribedOperation } from './operation-traits.ts';

/**
 * The page every `docs_url` points at (`PUBLIC_BASE_URL/docs/errors#<CODE>`): one section per
 * code of the error catalogue, anchored by the code, with its status, cause, fix, an example body
 * and the operations that can answer with it. Generated from the catalogue and errorsOf, so a new
 * code or a newly declared error appears here with no edit. Plain HTML, no script.
 */

export interface ErrorsPage {
  html: string;
  contentSecurityPolicy: string;
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `backticks` in catalogue prose become <code>. */
const prose = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
code, pre { font: 14px/1.4 ui-monospace, monospace; background: #f3f4f6; border-radius: 4px; }
code { padding: 0 .25rem; }
pre { padding: .75rem; overflow-x: auto; }
section { border-top: 1px solid #d9dce3; padding-top: .5rem; }
section:target { background: #fff8d6; }
dt { font-weight: 600; }
nav li { display: inline; margin-right: .75rem; }
`;

function section(code: ErrorCode, operations: readonly DescribedOperation[], publicBaseUrl: string): string {
  const entry = ERROR_CATALOG[code];
  const answeredBy = operations.filter((op) => errorsOf(op).includes(code)).map((op) => `<code>${escapeHtml(op.id)}</code>`);
  return [
    `<section id="${code}">`,
    `<h2><a href="#${code}">${code}</a> <small>HTTP ${entry.status}</small></h2>`,
    `<p>${prose(entry.message)}</p>`,
    '<dl>',
    `<dt>Cause</dt><dd>${prose(entry.cause)}</dd>`,
    `<dt>Fix</dt><dd>${prose(entry.recoveryHint)}</dd>`,
    ...(entry.validAlternatives.length > 0
      ? [`<dt>Valid alternatives</dt><dd>${entry.validAlternatives.map((v) => `<code>${escapeHtml(v)}</code>`).join(', ')}</dd>`]
      : []),
    ...(answeredBy.length > 0 ? [`<dt>Operations that can answer it</dt><dd>${answeredBy.join(', ')}</dd>`] : []),
    '</dl>',
    `<pre>${escapeHtml(JSON.stringify(errorExample(code, publicBaseUrl), null, 2))}</pre>`,
    '</section>',
  ].join('\n');
}

export function renderErrorsPage(operations: readonly DescribedOperation[], publicBaseUrl: string): ErrorsPage {
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Errors · Accounting Service API</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<h1>Errors</h1>',
    `<p>Every failure answers <code>{ "error": { "code", "message", "status", "request_id", "recovery_hint", "docs_url", "valid_alternatives" } }</code>. <code>docs_url</code> links to the section below for its code; <code>recovery_hint</code> says what to do next. The API reference is at <a href="/docs">/docs</a>.</p>`,
    `<nav><ul>${ERROR_CODES.map((code) => `<li><a href="#${code}">${code}</a></li>`).join('')}</ul></nav>`,
    ...ERROR_CODES.map((code) => section(code, operations, publicBaseUrl)),
    '</body>',
    '</html>',
    '',
  ].join('\n');
  // No script at all; the one inline style is allowed by its hash.
  const styleHash = createHash('sha256').update(STYLE, 'utf8').digest('base64');
  const contentSecurityPolicy = `default-src 'none'; style-src 'sha256-${styleHash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { html, contentSecurityPolicy };
}
