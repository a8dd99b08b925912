import { PDF } from '../../helpers/documents.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { postMcp } from '../../helpers/mcp-client.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { buildRegistry } from '../../../registry/build-registry.ts';
import { defineOperation, isPublic, READ_ONLY, requiredScope } from '../../../registry/define-operation.ts';
import { CRON_PATH } from '../../../dispatcher/cron-route.ts';
import { DomainError } from '../../../domain/kernel/errors.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import type { OperationContext, Principal } from '../../../domain/context.ts';
import { byteSourceOf } from '../../../domain/kernel/byte-source.ts';

/**
 * Facts stated once (issue 9): the headers that go with an error, the identity public routes run
 * as, and authorisation in the domain — each checked through what callers really get.
 */

/** What spec Authentication and Limits ask for, written out here rather than imported. */
const UNAUTHENTICATED_HEADERS = { 'www-authenticate': 'Bearer realm="api"' };

describe.each(DB_TARGETS)('facts stated once (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestServices(target, { config: { CRON_SECRET: 'cron-secret-for-facts-0123456789' } });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  it('sends the same WWW-Authenticate with UNAUTHENTICATED on REST, /mcp and the cron route', async () => {
    const rest = await call(app, 'GET', '/api/v1/companies');
    const mcp = await postMcp(app, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const cron = await call(app, 'POST', CRON_PATH, { headers: { authorization: 'Bearer wrong' } });
    for (const [surface, response] of [
      ['rest', rest],
      ['mcp', mcp],
      ['cron', cron],
    ] as const) {
      expect(response.status, surface).toBe(401);
      expect(response.body.error.code, surface).toBe('UNAUTHENTICATED');
      for (const [name, value] of Object.entries(UNAUTHENTICATED_HEADERS)) expect(response.headers.get(name), surface).toMatch(new RegExp(`^${value}`));
    }
    // The OAuth-protected resources also name their metadata (RFC 9728 §5.1; MCP authorization spec).
    expect(rest.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", resource_metadata="https://api.example.test/.well-known/oauth-protected-resource/api/v1"',
    );
    expect(mcp.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", resource_metadata="https://api.example.test/.well-known/oauth-protected-resource/mcp"',
    );
    expect(cron.headers.get('www-authenticate')).toBe('Bearer realm="api"');
  });

  it('sends Retry-After: 60 with RATE_LIMITED', async () => {
    const limited = await makeKey(t.services.database.prisma, tenant.userId, { rateLimitPerMinute: 1 });
    expect((await call(app, 'GET', '/api/v1/companies', { key: limited.key })).status).toBe(200);
    const refused = await call(app, 'GET', '/api/v1/companies', { key: limited.key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('runs public operations as api_anon, never the privileged identity', async () => {
    // A public probe through the real pipeline: it answers with the role its query ran as.
    const probe = defineOperation({
      id: 'probeIdentity',
      group: 'platform',
      method: 'GET',
      path: '/probe',
      summary: 'Probe',
      description: 'Reports the database role of a public request.',
      auth: { public: true },
      ...READ_ONLY,
      input: {},
      output: z.object({ role: z.string() }),
      status: 200,
      examples: { response: { role: 'api_anon' } },
      surfaces: ['api'],
      handler: async (ctx) => {
        const rows = await ctx.db.$queryRaw<{ role: string }[]>`SELECT current_user::text AS role`;
        return { data: { role: rows[0]?.role ?? '' } };
      },
    });
    const probeApp = createApp(t.services, buildRegistry([probe]));
    const privileged = await t.services.database.prisma.$queryRaw<{ role: string }[]>`SELECT current_user::text AS role`;
    expect(privileged[0]?.role).not.toBe('api_anon');
    for (const key of [undefined, tenant.key]) {
      const response = await call(probeApp, 'GET', '/api/v1/probe', key ? { key } : {});
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.role).toBe('api_anon');
    }
  });

  it('attributes a public request to the key its optional token names, in the log', async () => {
    // A validation denial on a public route: its log line carries the attributed key.
    const attributed = await call(app, 'GET', '/api/v1/health?zz_unknown=1', { key: tenant.key, headers: { 'user-agent': 'attribution-test' } });
    const anonymous = await call(app, 'GET', '/api/v1/health?zz_unknown=2', {
      key: 'sk_test_nonexistentnonexistentnonexist',
      headers: { 'user-agent': 'attribution-test' },
    });
    expect([attributed.status, anonymous.status]).toEqual([400, 400]);
    const lines = t.logs.lines.filter((line) => line.event === 'request_denied' && line.user_agent === 'attribution-test');
    expect(lines.map((line) => line.api_key_id)).toEqual([tenant.apiKeyId, null]);
    // A bad token on a public route is never an error by itself.
    expect((await call(app, 'GET', '/api/v1/health', { key: 'junk' })).status).toBe(200);
  });

  it('has every domain verb check its own scope: a handler called directly refuses a key without it', async () => {
    const operations = registry.operations.filter((op) => !isPublic(op));
    expect(operations.length).toBeGreaterThan(5);
    for (const op of operations) {
      const scope = requiredScope(op)!;
      const actor: Principal = {
        apiKeyId: tenant.apiKeyId,
        apiKeyName: 'test key',
        userId: tenant.userId,
        companyId: null,
        scopes: SCOPES.filter((s) => s !== scope),
        mode: 'test',
        rateLimitPerMinute: 1000,
      };
      const ctx: OperationContext = {
        services: t.services,
        actor,
        requestId: 'req_direct',
        db: t.services.database.prisma,
        inTransaction: false,
        dryRun: false,
      };
      const params = { ...(op.examples.params as Record<string, string> | undefined) };
      if ('companyId' in params) params.companyId = tenant.companyId;
      const input = {
        params: op.input.params?.parse(params) ?? {},
        query: op.input.query?.parse(op.examples.query ?? {}) ?? {},
        body: op.input.body?.parse(op.examples.body),
        // The pipeline hands an operation that takes a file its file; so does this direct call.
        ...(op.input.file && { file: { filename: 'kvitto.pdf', content: byteSourceOf(PDF) } }),
      };
      // Bypassing the pipeline (as the dispatcher or a future surface might): the domain still says no.
      // An operation answering only in bytes (exportSie) is its representation's render.
      const run = op.handler ?? op.produces?.[0]?.render ?? (() => Promise.reject(new Error(`${op.id} has no handler`)));
      const outcome = await Promise.resolve(run(ctx, input, undefined)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(outcome, `${op.id} ran without ${scope}`).toBeInstanceOf(DomainError);
      expect(outcome, op.id).toMatchObject({ code: 'INSUFFICIENT_SCOPE', requiredScope: scope });
    }
  });
});
