import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { call } from '../../helpers/http.ts';
import { discoveryApp } from '../../helpers/discovery.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';
import { ERROR_CATALOG } from '../../../registry/error-catalog.ts';
import { registry } from '../../../registry/index.ts';
import { groupsInUse } from '../../../discovery/groups.ts';
import { errorsOf } from '../../../registry/errors-of.ts';
import { EXPECTED_PUBLIC_HEADERS, expectHeaders } from '../../helpers/headers.ts';

const BASE = 'https://api.example.test';
const operations = registry.operations;

function expectPublicHeaders(headers: Headers, { csp = true } = {}): void {
  expectHeaders(headers, EXPECTED_PUBLIC_HEADERS, csp ? [] : ['content-security-policy']);
  expect(headers.get('service-version')).toBe(API_VERSION);
  expect(headers.get('x-robots-tag')).toBeNull();
}

describe('discovery routes', () => {
  let t: TestServices;
  let app: ReturnType<typeof discoveryApp>;

  beforeAll(async () => {
    t = await createTestServices('pglite');
    app = discoveryApp(t.services);
  });
  afterAll(async () => t?.close());

  it("serves /api/v1/openapi.json past the registry's /api/v1 routes, in the assembled app too", async () => {
    for (const served of [app, buildApp(t.services)]) {
      const response = await call(served, 'GET', '/api/v1/openapi.json');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body.openapi).toBe('3.1.0');
      expectPublicHeaders(response.headers);
    }
  });

  it('openapi.json takes examples=all (every body exampled, as /docs renders it) and refuses any other query, naming what it accepts', async () => {
    const contract = await call(app, 'GET', '/api/v1/openapi.json?examples=contract');
    expect(contract.text).toBe((await call(app, 'GET', '/api/v1/openapi.json')).text);
    const full = await call(app, 'GET', '/api/v1/openapi.json?examples=all');
    expect(full.status).toBe(200);
    expect(Buffer.byteLength(full.text)).toBeGreaterThan(Buffer.byteLength(contract.text));
    expect(full.body.components.examples).toHaveProperty('NOT_FOUND');
    for (const query of ['examples=none', 'examples=all&examples=contract', 'v=2', 'examples=all&pretty=1']) {
      const refused = await call(app, 'GET', `/api/v1/openapi.json?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code, query).toBe('VALIDATION_ERROR');
      expect(refused.body.error.valid_alternatives, query).toEqual(['examples=contract', 'examples=all']);
      expect(refused.body.error.message, query).toContain('examples=all');
    }
  });

  it('takes every base URL from PUBLIC_BASE_URL, never from Host or forwarding headers', async () => {
    const spoof = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', forwarded: 'host=evil.example' };
    const openapi = await call(app, 'GET', '/api/v1/openapi.json', { headers: spoof });
    expect(openapi.body.servers[0].url).toBe(`${BASE}/api/v1`);
    for (const path of [
      '/llms.txt',
      '/.well-known/security.txt',
      '/.well-known/agent-skills/index.json',
      '/.well-known/skills/accounting-companies/SKILL.md',
    ]) {
      const response = await call(app, 'GET', path, { headers: spoof });
      expect(response.status, path).toBe(200);
      expect(response.text, path).not.toContain('evil.example');
      expect(response.text, path).toContain(BASE);
    }
  });

  it('/llms.txt follows the llms.txt format and every link it gives resolves', async () => {
    const response = await call(app, 'GET', '/llms.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expectPublicHeaders(response.headers);
    const lines = response.text.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((line) => line.trim() !== '' && !line.startsWith('# '))).toMatch(/^> \S/);
    expect(response.text).toContain(`Canonical API base URL: ${BASE}/api/v1`);
    expect(response.text).toContain(`${BASE}/mcp`);
    expect(response.text).toMatch(/\[Security disclosure policy\]\(https:\/\/api\.example\.test\/\.well-known\/security\.txt\)/);
    expect(lines.filter((line) => line.startsWith('## ')).length).toBeGreaterThanOrEqual(3);
    for (const group of groupsInUse(operations)) expect(response.text).toContain(`${BASE}/docs/reference/${group}.md`);

    const links = [...response.text.matchAll(/\]\((https?:\/\/[^)]+)\)/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(8);
    for (const link of links) {
      expect(link.startsWith(BASE), link).toBe(true);
      const linked = await call(app, 'GET', link.slice(BASE.length));
      expect(linked.status, link).toBe(200);
    }
  });

  it('/.well-known/security.txt has Contact, a future Expires under a year away, and Canonical (RFC 9116)', async () => {
    const response = await call(app, 'GET', '/.well-known/security.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expectPublicHeaders(response.headers);
    const fields = Object.fromEntries(
      response.text
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
    );
    expect(fields.Contact).toMatch(/^(mailto:|https:)/);
    const expires = Date.parse(fields.Expires ?? '');
    expect(expires).toBeGreaterThan(Date.now());
    expect(expires - Date.now()).toBeLessThan(365 * 86_400_000);
    expect(fields.Canonical).toBe(`${BASE}/.well-known/security.txt`);
  });

  it('publishes one skill per group in the v0.1.0 index, each file served', async () => {
    const index = await call(app, 'GET', '/.well-known/skills/index.json');
    expect(index.status).toBe(200);
    expectPublicHeaders(index.headers);
    expect(index.body.skills.map((skill: { name: string }) => skill.name)).toEqual([
      ...groupsInUse(operations).map((group) => `accounting-${group}`),
      'accounting-mcp',
    ]);
    for (const skill of index.body.skills as { name: string; description: string; files: string[] }[]) {
      expect(skill.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(skill.name.length).toBeLessThanOrEqual(64);
      expect(skill.description.length).toBeGreaterThan(0);
      expect(skill.description.length).toBeLessThanOrEqual(1024);
      expect(skill.files[0]).toBe('SKILL.md');
      for (const file of skill.files) {
        const served = await call(app, 'GET', `/.well-known/skills/${skill.name}/${file}`);
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        expectPublicHeaders(served.headers);
        expect(served.text.startsWith(`---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n`)).toBe(true);
      }
    }
    expect((await call(app, 'GET', '/.well-known/skills/accounting-nothing/SKILL.md')).status).toBe(404);
  });

  it('publishes the v0.2.0 index whose digests match the served bytes', async () => {
    const index = await call(app, 'GET', '/.well-known/agent-skills/index.json');
    expect(index.status).toBe(200);
    expectPublicHeaders(index.headers);
    expect(index.body.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.body.skills.length).toBe(groupsInUse(operations).length + 1);
    for (const skill of index.body.skills as { name: string; type: string; url: string; digest: string }[]) {
      expect(skill.type).toBe('skill-md');
      expect(skill.url).toBe(`${BASE}/.well-known/agent-skills/${skill.name}/SKILL.md`);
      const served = await call(app, 'GET', skill.url.slice(BASE.length));
      expect(served.status).toBe(200);
      expect(skill.digest).toBe(`sha256:${createHash('sha256').update(Buffer.from(served.text, 'utf8')).digest('hex')}`);
    }
  });

  it('skills say how to authenticate, paginate, verify signatures and recover from every error their operations give', async () => {
    const skill = async (name: string) => (await call(app, 'GET', `/.well-known/skills/${name}/SKILL.md`)).text;
    for (const group of groupsInUse(operations)) {
      const text = await skill(`accounting-${group}`);
      const ops = operations.filter((op) => op.group === group);
      for (const op of ops) expect(text).toContain(`${op.method} /api/v1${op.path}`);
      for (const code of new Set(ops.flatMap(errorsOf)))
        expect(text).toContain(`| \`${code}\` | ${ERROR_CATALOG[code].status} | ${ERROR_CATALOG[code].recoveryHint}`);
      if (!ops.every((op) => 'public' in op.auth)) expect(text).toContain('Authorization: Bearer <API_KEY>');
    }
    expect(await skill('accounting-companies')).toContain('meta.pagination.next_cursor');
    const webhooks = await skill('accounting-webhooks');
    expect(webhooks).toContain('X-Service-Signature: t=<unix seconds>,v1=<hex>');
    expect(webhooks).toContain('verifySignature(');
    expect(webhooks).toContain('Idempotency-Key');
  });

  it("/docs has its own CSP that allows only our scripts and the page's hashed bootstrap", async () => {
    const page = await call(app, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectPublicHeaders(page.headers, { csp: false });
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/(^|; )default-src 'none'(;|$)/);
    expect(csp).toMatch(/(^|; )script-src 'self' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|unsafe-eval/);
    const src = /<script[^>]*\bsrc="([^"]+)"/.exec(page.text)?.[1];
    expect(src).toMatch(/^\/docs\/assets\/scalar-[0-9a-f]{16}\.js$/);
    expect(page.text).toContain('/api/v1/openapi.json');
    const inline = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/.exec(page.text)?.[1] ?? '';
    expect(csp).toContain(`'sha256-${createHash('sha256').update(inline).digest('base64')}'`);
    expect(page.text).not.toMatch(/cdn\.jsdelivr|unpkg|fonts\.scalar/);
  });

  it('serves the reference bundle itself, from node_modules', async () => {
    const page = await call(app, 'GET', '/docs');
    const src = /<script[^>]*\bsrc="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const asset = await call(app, 'GET', src);
    expect(asset.status, 'the @scalar/api-reference package (browser bundle) must be installed').toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.text.length).toBeGreaterThan(100_000);
    expect((await call(app, 'GET', '/docs/assets/other.js')).status).toBe(404);
  });

  it('serves the generated Markdown reference', async () => {
    const index = await call(app, 'GET', '/docs/reference/index.md');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(index.text).toContain('# Accounting Service API reference');
    expect((await call(app, 'GET', '/docs/reference/nothing.md')).status).toBe(404);
  });

  it('answers wrong methods with 405 and Allow: GET', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/openapi.json'],
      ['DELETE', '/llms.txt'],
      ['PUT', '/.well-known/skills/index.json'],
      ['POST', '/api/v1/capabilities'],
    ] as const) {
      const response = await call(app, method, path);
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });
});
