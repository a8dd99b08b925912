import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { call } from '../../helpers/http.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { ERROR_CODES, type ErrorCode } from '../../../domain/kernel/errors.ts';
import { ERROR_CATALOG } from '../../../registry/error-catalog.ts';

/**
 * What a REST integrator meets when something goes wrong (issue 11, "REST and docs"): every
 * docs_url opens a section of a page this server serves, an unknown route is explained in terms
 * of routes, and an unsafe webhook URL names the rule that refused it.
 */

const BASE = 'https://api.example.test'; // the tests' PUBLIC_BASE_URL (test/helpers/db.ts)
const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

engineSuite('error guidance', { app: (services) => buildApp(services), tenant: true }, (t, target) => {
  it('points every docs_url at a section of /docs/errors that this server serves, with the cause and the fix', async () => {
    const webhooks = `/api/v1/companies/${t.tenant.companyId}/webhooks`;
    const failures = [
      await call(t.app, 'GET', '/api/v1/companies'),
      await call(t.app, 'GET', `/api/v1/companies/${randomUUID()}/webhooks`, { key: t.tenant.key }),
      await call(t.app, 'PATCH', `/api/v1/companies/${t.tenant.companyId}`, { key: t.tenant.key, body: {} }),
      await call(t.app, 'POST', webhooks, {
        key: t.tenant.key,
        body: { event_type: 'company.updated', webhook_url: 'https://hooks.example.com/x', name: 'n' },
      }),
      await call(t.app, 'GET', '/api/v1/nothing-here', { key: t.tenant.key }),
      await call(t.app, 'DELETE', '/api/v1/health'),
    ];
    expect(failures.map((f) => f.body.error.code)).toEqual([
      'UNAUTHENTICATED',
      'NOT_FOUND',
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'ROUTE_NOT_FOUND',
      'METHOD_NOT_ALLOWED',
    ]);

    const page = await call(t.app, 'GET', '/docs/errors');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(page.headers.get('content-security-policy')).not.toContain('script-src');
    for (const failure of failures) {
      const { code, docs_url: docsUrl } = failure.body.error as { code: ErrorCode; docs_url: string };
      expect(docsUrl).toBe(`${BASE}/docs/errors#${code}`);
      // The URL's path is served by this very t.app; its fragment is a section of that page.
      const url = new URL(docsUrl);
      const served = await call(t.app, 'GET', url.pathname);
      expect(served.status).toBe(200);
      expect(served.text).toContain(`<section id="${url.hash.slice(1)}">`);
    }
    // Every code of the catalogue has its section, with the cause and the fix spelled out.
    for (const code of ERROR_CODES) {
      const start = page.text.indexOf(`<section id="${code}">`);
      expect(start, code).toBeGreaterThan(0);
      const section = page.text.slice(start, page.text.indexOf('</section>', start));
      expect(section).toContain(`HTTP ${ERROR_CATALOG[code].status}`);
      expect(section).toContain('<dt>Cause</dt>');
      expect(section).toContain('<dt>Fix</dt>');
      expect(section.replace(/<\/?code>/g, '`')).toContain(escapeHtml(ERROR_CATALOG[code].recoveryHint));
    }
    expect(page.text).not.toMatch(/example-accounting|docs\.example/);
  });

  it('answers an unknown route with a hint about routes and the nearest documented ones', async () => {
    const typo = await call(t.app, 'GET', '/api/v1/compnies', { key: t.tenant.key });
    expect(typo.status).toBe(404);
    expect(typo.body.error.code).toBe('ROUTE_NOT_FOUND');
    expect(typo.body.error.message).toBe('No route GET /api/v1/compnies. The routes are listed in /api/v1/openapi.json.');
    expect(typo.body.error.recovery_hint).toMatch(/openapi\.json/);
    expect(typo.body.error.recovery_hint).not.toMatch(/\bids?\b/);
    expect(typo.body.error.valid_alternatives[0]).toBe('GET /api/v1/companies');

    const deeper = await call(t.app, 'GET', `/api/v1/companies/${t.tenant.companyId}/webhookz`, { key: t.tenant.key });
    expect(deeper.body.error.code).toBe('ROUTE_NOT_FOUND');
    // The likeliest typo first: webhookz is one edit from webhooks.
    expect(deeper.body.error.valid_alternatives[0]).toMatch(/^(GET|POST) \/api\/v1\/companies\/\{companyId\}\/webhooks$/);
    expect(deeper.body.error.valid_alternatives.length).toBeLessThanOrEqual(5);

    // An unknown id on a real route is still NOT_FOUND, whose hint is about ids.
    const unknownId = await call(t.app, 'GET', `/api/v1/companies/${t.tenant.companyId}/webhooks/${randomUUID()}`, { key: t.tenant.key });
    expect(unknownId.body.error.code).toBe('NOT_FOUND');
    expect(unknownId.body.error.recovery_hint).toMatch(/id/);

    const page = await call(t.app, 'GET', '/docs/reference/nope.md');
    expect(page.body.error.code).toBe('ROUTE_NOT_FOUND');
    expect(page.body.error.valid_alternatives).toContain('/docs/reference/errors.md');
  });

  it('names the rule that refused a webhook URL, and on a development server the setting for local receivers', async () => {
    const create = (webhookUrl: string) =>
      call(t.app, 'POST', `/api/v1/companies/${t.tenant.companyId}/webhooks`, {
        key: t.tenant.key,
        headers: { 'idempotency-key': randomUUID() },
        body: { event_type: 'company.updated', webhook_url: webhookUrl, name: 'Local receiver' },
      });
    const loopback = await create('https://localhost:8443/hook');
    expect(loopback.status).toBe(400);
    expect(loopback.body.error.details).toEqual([{ path: 'body.webhook_url', message: 'url_unsafe:loopback' }]);
    expect(loopback.body.error.message).toContain('(127.0.0.1, rule: 127.0.0.0/8)');

    const scheme = await create('http://hooks.example.com/x');
    expect(scheme.body.error.message).toContain('rule: scheme must be https');

    const embedded = t.services.config.embedded;
    expect(embedded).toBe(target === 'pglite');
    if (embedded) {
      expect(loopback.body.error.recovery_hint).toContain('WEBHOOK_ALLOWED_PRIVATE_CIDRS=127.0.0.1/32');
      expect(scheme.body.error.recovery_hint).toContain('WEBHOOK_ALLOWED_PRIVATE_CIDRS');
    } else {
      // A production-style server never suggests opening private ranges.
      expect(loopback.body.error.recovery_hint).toBe(ERROR_CATALOG.VALIDATION_ERROR.recoveryHint);
      expect(scheme.body.error.recovery_hint).toBe(ERROR_CATALOG.VALIDATION_ERROR.recoveryHint);
    }
  });
});
