import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS } from '../../helpers/db.ts';
import { makeKey, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { connectInProcess, firstJson } from '../../helpers/mcp-client.ts';
import { OAuthSession, registerClient, startOAuthServer } from '../../helpers/oauth.ts';
import { exampleParams, sendRest, toolArguments } from '../../helpers/op-requests.ts';
import type { AppEnv } from '../../../http/app-env.ts';
import { PROTECTED_RESOURCES, resourceUri, type ProtectedResource } from '../../../http/oauth/resources.ts';
import { registry } from '../../../registry/index.ts';
import { isPublic, requiredScope, type Operation } from '../../../registry/define-operation.ts';
import { compileTools, type ToolEntry } from '../../../mcp/tools.ts';
import { DEFAULT_VARIANT } from '../../../mcp/naming.ts';
import { SCOPES, type Scope } from '../../../domain/kernel/scopes.ts';

/** A fresh database and its migrations: about a minute on a loaded two-core machine. */
const START_TIMEOUT_MS = 300_000;

/**
 * The scope matrix, generated from the registry: every operation behind a key, called on the
 * caller's own company by a credential holding every scope but the one the operation requires,
 * answers 403 INSUFFICIENT_SCOPE naming that scope, with no data — over REST and over MCP, with an
 * API key and with OAuth access tokens a person granted through the real flow (issue 31). As a
 * control that the refusal is the scope's and nothing else's, the same operation called by a
 * credential lacking a different scope is not refused for the operation's scope.
 */

const guarded = registry.operations.filter((op) => !isPublic(op));
const scopeOf = (op: Operation): Scope => requiredScope(op)!;
/** The scopes some operation requires: one credential kind lacks each. */
const required = SCOPES.filter((scope) => guarded.some((op) => scopeOf(op) === scope));
/** Another required scope than this one (the control's credential lacks it). */
const otherThan = (scope: Scope): Scope => required[(required.indexOf(scope) + 1) % required.length]!;

interface Credential {
  label: string;
  bearer(resource: ProtectedResource): Promise<string>;
  mcp: Client;
}

describe.each(DB_TARGETS)('scope matrix: a credential without the required scope gets 403 for every operation (%s)', (target) => {
  let server: Awaited<ReturnType<typeof startOAuthServer>>;
  let app: Hono<AppEnv>;
  let tenant: Tenant;
  /** Per scope, the credentials that hold every scope but it. */
  const lacking = new Map<Scope, Credential[]>();
  const sent = new Map<string, { rest: number; mcp: number; controls: number; bypasses: number }>();
  const tools = new Map<string, ToolEntry>(compileTools(registry.operations, DEFAULT_VARIANT).map((entry) => [entry.op.id, entry]));

  /** A probe without the scope (refused or a bypass), or a control call holding it. */
  const count = (credential: Credential, surface: 'rest' | 'mcp', refused: boolean | 'control') => {
    const tally = sent.get(credential.label) ?? { rest: 0, mcp: 0, controls: 0, bypasses: 0 };
    if (refused === 'control') tally.controls += 1;
    else {
      tally[surface] += 1;
      if (!refused) tally.bypasses += 1;
    }
    sent.set(credential.label, tally);
  };

  /** The operation's example parameters on the tenant's own company (its other ids are the examples': the scope check comes first). */
  const ownParams = (op: Operation): Record<string, string> => {
    const params = exampleParams(op);
    if ('companyId' in params) params.companyId = tenant.companyId;
    return params;
  };

  beforeAll(async () => {
    server = await startOAuthServer(target);
    app = server.app;
    const db = server.t.services.database.prisma;
    tenant = await makeTenant(db);
    const client = await registerClient(server.origin, 'http://127.0.0.1:49152/callback');
    for (const scope of required) {
      const scopes = SCOPES.filter((s) => s !== scope);
      const { key } = await makeKey(db, tenant.userId, { scopes });
      const sessions = new Map<ProtectedResource, OAuthSession>();
      for (const resource of Object.keys(PROTECTED_RESOURCES) as ProtectedResource[]) {
        // The tenant signs in with its key of every scope and ticks all but this one.
        const session = await OAuthSession.grant({
          origin: server.origin,
          client,
          apiKey: tenant.key,
          resource: resourceUri(server.origin, resource),
          scopes,
          companies: [tenant.companyId],
        });
        sessions.set(resource, session);
      }
      const bearer = (resource: ProtectedResource) => sessions.get(resource)!.accessToken();
      lacking.set(scope, [
        { label: 'API key', bearer: async () => key, mcp: await connectInProcess(app, { key }) },
        { label: 'OAuth token', bearer, mcp: await connectInProcess(app, { bearer: () => bearer('mcp') }) },
      ]);
    }
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    for (const [label, tally] of sent) {
      console.info(
        `scope matrix (${target}), ${label}: ${tally.rest} REST requests and ${tally.mcp} MCP tool calls without the scope, ${tally.bypasses} bypasses; ${tally.controls} control calls with it`,
      );
    }
    for (const credentials of lacking.values()) for (const credential of credentials) await credential.mcp.close();
    await server?.close();
  });

  it('covers every scope an operation requires, with both kinds of credential', () => {
    expect(guarded.length).toBeGreaterThan(5);
    expect(required.length).toBeGreaterThan(1);
    expect([...lacking.values()].every((credentials) => credentials.length === 2)).toBe(true);
  });

  it.each(guarded.map((op) => [op.id, op] as const))('REST %s', async (_id, op) => {
    const scope = scopeOf(op);
    for (const credential of lacking.get(scope)!) {
      const refused = await sendRest(app, op, ownParams(op), await credential.bearer('api'));
      const context = `${op.id} without ${scope}, as ${credential.label}: ${refused.text}`;
      count(credential, 'rest', refused.status === 403 && refused.body?.data === undefined);
      expect(refused.status, context).toBe(403);
      expect(refused.body?.error, context).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: scope });
      expect(refused.body?.data, context).toBeUndefined();
    }
    // The control: holding the scope (and lacking another), the operation gets past its scope check.
    for (const credential of lacking.get(otherThan(scope))!) {
      const allowed = await sendRest(app, op, ownParams(op), await credential.bearer('api'));
      count(credential, 'rest', 'control');
      const context = `${op.id} with ${scope}, as ${credential.label}: ${allowed.text}`;
      expect(allowed.status, context).toBeLessThan(500);
      expect(allowed.status === 403 && allowed.body?.error?.required_scope === scope, context).toBe(false);
      expect(allowed.status === 401, context).toBe(false);
    }
  });

  const mcpGuarded = guarded.filter((op) => tools.has(op.id));
  it.each(mcpGuarded.map((op) => [op.id, op] as const))('MCP %s', async (_id, op) => {
    const entry = tools.get(op.id)!;
    const scope = scopeOf(op);
    for (const credential of lacking.get(scope)!) {
      const result = await credential.mcp.callTool({ name: entry.name, arguments: toolArguments(entry, ownParams(op)) });
      const context = `${entry.name} without ${scope}, as ${credential.label}: ${JSON.stringify(result)}`;
      count(credential, 'mcp', result.isError === true && result.structuredContent === undefined);
      expect(result.isError, context).toBe(true);
      expect(firstJson(result).error, context).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: scope });
      expect(result.structuredContent, context).toBeUndefined();
    }
    for (const credential of lacking.get(otherThan(scope))!) {
      const result = await credential.mcp.callTool({ name: entry.name, arguments: toolArguments(entry, ownParams(op)) });
      count(credential, 'mcp', 'control');
      const error = result.isError ? firstJson(result).error : undefined;
      expect(error?.required_scope === scope, `${entry.name} with ${scope}, as ${credential.label}: ${JSON.stringify(result)}`).toBe(false);
    }
  });
});
