import { createHash } from 'node:crypto';
import type { Scope } from '../../domain/kernel/scopes.ts';
import { SECURITY_HEADERS } from '../security-headers.ts';

/**
 * The sign-in and consent pages: plain server-rendered HTML, one inline style sheet allowed by
 * its hash and nothing else (no scripts, no external assets), labels on every control, a
 * fieldset and legend per group of choices (WCAG 2.2 1.3.1, 3.3.2), errors announced with
 * role="alert".
 */
export const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#111;background:#fff}',
  'fieldset{border:1px solid #888;margin:1rem 0;padding:.5rem 1rem}',
  'label{display:block;margin:.25rem 0}',
  'input[type=password]{width:100%;font:inherit;padding:.4rem}',
  'button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}',
  '.payroll{font-weight:bold}',
  '[role=alert]{border:2px solid #a00;padding:.5rem;color:#700}',
  ':focus{outline:3px solid #1a5fb4;outline-offset:2px}',
].join('');
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The page's headers: the API's security headers with a CSP fitted to the page — its one style
 * sheet by hash, forms posting only to us and, since the browser applies form-action to the
 * redirects after a submission too, to the client's registered redirect URI's origin.
 */
export function pageHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const targets = ["'self'", ...formTargets].join(' ');
  return {
    ...SECURITY_HEADERS,
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action ${targets}; frame-ancestors 'none'; base-uri 'none'`,
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
  };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body>
</html>`;
}

const alert = (message: string | undefined): string => (message ? `<p role="alert">${escapeHtml(message)}</p>` : '');

export interface SignInView {
  action: string;
  clientName: string;
  csrf: string;
  error?: string;
}

/** Step 1: who you are. The credential is one of your API keys (docs/oauth.md says why). */
export const signInPage = (view: SignInView): string =>
  page(
    `Connect ${view.clientName} to your books`,
    `${alert(view.error)}
<p><strong>${escapeHtml(view.clientName)}</strong> asks to act on your books. Sign in with one of your API keys: the connection will never hold more than that key does, and you choose what it may do next.</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="api_key">API key (sk_test_… or sk_live_…)</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" required spellcheck="false">
<p><button type="submit" name="step" value="sign_in">Sign in</button></p>
</form>`,
  );

export interface ConsentView {
  action: string;
  clientName: string;
  redirectHost: string;
  csrf: string;
  ticket: string;
  mode: 'test' | 'live';
  companies: readonly { id: string; name: string }[];
  scopes: readonly { scope: Scope; description: string; payroll: boolean }[];
  error?: string;
}

/** Step 2: which companies and which scopes; only what the signed-in key holds is offered. */
export const consentPage = (view: ConsentView): string =>
  page(
    `Allow ${view.clientName}?`,
    `${alert(view.error)}
<p><strong>${escapeHtml(view.clientName)}</strong> will receive tokens at <strong>${escapeHtml(view.redirectHost)}</strong> and act on the companies and with the permissions you tick, in ${view.mode === 'live' ? '<strong>live</strong> mode (real books)' : 'test mode (sandbox companies only)'}. You can revoke this connection at any time.</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<input type="hidden" name="ticket" value="${escapeHtml(view.ticket)}">
<fieldset><legend>Companies</legend>
${
  view.companies.length === 0
    ? '<p>Your key reaches no company in this mode.</p>'
    : view.companies
        .map(
          (company, i) =>
            `<label for="company-${i}"><input id="company-${i}" type="checkbox" name="company" value="${escapeHtml(company.id)}"> ${escapeHtml(company.name)}</label>`,
        )
        .join('\n')
}
</fieldset>
<fieldset><legend>Permissions</legend>
${view.scopes
  .map(
    (entry, i) =>
      `<label for="scope-${i}"${entry.payroll ? ' class="payroll"' : ''}><input id="scope-${i}" type="checkbox" name="scope" value="${escapeHtml(entry.scope)}"${entry.payroll ? '' : ' checked'}> <code>${escapeHtml(entry.scope)}</code>: ${escapeHtml(entry.description)}${entry.payroll ? ' — payroll: salaries and personal identity numbers of employees' : ''}</label>`,
  )
  .join('\n')}
</fieldset>
<p><button type="submit" name="step" value="approve">Allow</button><button type="submit" name="step" value="deny">Deny</button></p>
</form>`,
  );

/** A refusal the person should read (bad CSRF token, expired interaction), never a stack trace. */
export const messagePage = (title: string, message: string): string => page(title, `<p role="alert">${escapeHtml(message)}</p>`);

/** oidc-provider's error page, ours: the error code and its description, escaped. */
export const renderErrorPage = (out: { error?: string; error_description?: string }): string =>
  messagePage('Authorization failed', `${out.error ?? 'error'}: ${out.error_description ?? 'the request could not be completed.'}`);
