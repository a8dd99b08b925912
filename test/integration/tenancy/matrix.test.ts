import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS } from '../../helpers/db.ts';
import { makeCompany, makeTenant, type Tenant } from '../../helpers/factories.ts';
import { connectInProcess, firstJson } from '../../helpers/mcp-client.ts';
import { OAuthSession, registerClient, startOAuthServer } from '../../helpers/oauth.ts';
import { exampleParams, sendRest, toolArguments } from '../../helpers/op-requests.ts';
import type { AppEnv } from '../../../http/app-env.ts';
import { registry } from '../../../registry/index.ts';
import { isPublic, type Operation } from '../../../registry/define-operation.ts';
import { compileTools, type ToolEntry } from '../../../mcp/tools.ts';
import { DEFAULT_VARIANT } from '../../../mcp/naming.ts';
import { pathParamNames } from '../../../discovery/operation-traits.ts';
import { createMembership } from '../../../domain/users/admin.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { PROTECTED_RESOURCES, resourceUri, type ProtectedResource } from '../../../http/oauth/resources.ts';

/**
 * The tenancy matrix, generated from the registry: every operation with a path id, called by a
 * real second tenant (every scope, its own company) with the first tenant's ids, answers 404 with
 * no data, byte-for-byte like an id nobody has — over REST and over MCP. Ids are real: the first
 * tenant replays the documented examples (reads, creates, updates; never deletes) and the ids in
 * the live answers are learned, so a new operation with examples is covered with no edit here.
 * An id no example produces falls back to a random uuid, and the suite prints which.
 *
 * Every probe is sent with three credentials of the intruder's (issue 31: the matrix runs with
 * OAuth tokens as well as API keys): its API key; OAuth access tokens (one per resource, /api/v1
 * and /mcp) it got through the real flow — registration, sign-in, consent, code with PKCE — for
 * its own company with every scope; and tokens the owner itself granted for another of its
 * companies only, which must reach nothing of the company the grant left out.
 */

/** A fresh database and its migrations: about a minute on a loaded two-core machine. */
const START_TIMEOUT_MS = 300_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPANY_PARAM = 'companyId';

/** Operations behind a key whose path names a company or a resource by id. */
const guarded = registry.operations.filter((op) => !isPublic(op) && pathParamNames(op).some((name) => isIdParam(op, name)));

/** An id parameter: its documented example is a uuid (a capability id or a period is not an id). */
function isIdParam(op: Operation, name: string): boolean {
  const example = (op.examples.params as Record<string, unknown> | undefined)?.[name];
  return name === COMPANY_PARAM || (typeof example === 'string' && UUID.test(example));
}

/** Reads before creates before updates; deletes never run, so every learned id stays alive. */
const phase = (op: Operation): number =>
  op.sideEffects.includes('delete') ? 3 : op.sideEffects.includes('update') ? 2 : op.sideEffects.includes('create') ? 1 : 0;

/** An error body with the ids and per-request values masked, to compare a foreign id's answer with an unknown one's. */
function normalise(text: string, ids: readonly string[]): unknown {
  let masked = text;
  ids.forEach((id, i) => {
    masked = masked.split(id).join(`<id${i}>`);
  });
  const body = JSON.parse(masked) as Record<string, unknown>;
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => k !== 'request_id')
          .map(([k, v]) => [k, strip(v)]),
      );
    }
    return value;
  };
  return strip(body);
}

/** One way the intruder presents itself: a bearer per surface, and the company it may act on. */
interface Credential {
  label: string;
  companyId: string;
  bearer(resource: ProtectedResource): Promise<string>;
  mcp: Client;
}

interface Probe {
  label: string;
  params: Record<string, string>;
  /** The first tenant's ids in the path: none may appear in the answer's data. */
  foreignIds: string[];
}

describe.each(DB_TARGETS)('tenancy matrix: another company gets 404 for every operation with a path id (%s)', (target) => {
  let server: Awaited<ReturnType<typeof startOAuthServer>>;
  let app: Hono<AppEnv>;
  let owner: Tenant;
  let intruder: Tenant;
  const credentials: Credential[] = [];
  /** Requests each credential sent, per surface, and the answers that were not a clean 404 (the report's figures). */
  const sent = new Map<string, { rest: number; mcp: number; bypasses: number }>();
  /** Example id → the owner's real id for it. */
  const realIds = new Map<string, string>();
  const replayed: string[] = [];
  const randomFor = new Set<string>();
  const tools = new Map<string, ToolEntry>(compileTools(registry.operations, DEFAULT_VARIANT).map((entry) => [entry.op.id, entry]));

  function learnIds(example: unknown, live: unknown): void {
    if (typeof example === 'string' && typeof live === 'string') {
      if (UUID.test(example) && UUID.test(live) && !realIds.has(example)) realIds.set(example, live);
    } else if (Array.isArray(example) && Array.isArray(live)) {
      for (const [i, item] of example.entries()) learnIds(item, live[i]);
    } else if (example && live && typeof example === 'object' && typeof live === 'object') {
      for (const [key, value] of Object.entries(example)) learnIds(value, (live as Record<string, unknown>)[key]);
    }
  }

  /** The owner's params for an example, or null while one of its ids is unknown. */
  function ownerParams(op: Operation): Record<string, string> | null {
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(exampleParams(op))) {
      const real = realIds.get(value);
      if (UUID.test(value) && !real) return null;
      params[name] = real ?? value;
    }
    return params;
  }

  const send = (op: Operation, params: Record<string, string>, key: string) => sendRest(app, op, params, key, realIds);

  /** The probes for one operation: the owner's company with its ids, and the credential's own company with the owner's resource ids. */
  function probes(op: Operation, ownCompany: string): Probe[] {
    const names = pathParamNames(op).filter((name) => isIdParam(op, name));
    const examples = exampleParams(op);
    const resolved: Record<string, string> = { ...examples };
    for (const name of names) {
      const real = name === COMPANY_PARAM ? owner.companyId : realIds.get(examples[name] ?? '');
      if (real) resolved[name] = real;
      else {
        resolved[name] = randomUUID();
        randomFor.add(`${op.id}.${name}`);
      }
    }
    const foreignIds = names.map((name) => resolved[name]!);
    const list: Probe[] = [{ label: "the owner's ids", params: resolved, foreignIds }];
    if (names.includes(COMPANY_PARAM) && names.length > 1) {
      list.push({
        label: "its own company with the owner's resource ids",
        params: { ...resolved, [COMPANY_PARAM]: ownCompany },
        foreignIds: foreignIds.filter((id) => id !== owner.companyId),
      });
    }
    return list;
  }

  /** The same request with every foreign id swapped for one nobody has. */
  const unknownTwin = (probe: Probe): Record<string, string> => {
    const params = { ...probe.params };
    for (const [name, value] of Object.entries(params)) if (probe.foreignIds.includes(value)) params[name] = randomUUID();
    return params;
  };

  const count = (credential: Credential, surface: 'rest' | 'mcp', refused: boolean) => {
    const tally = sent.get(credential.label) ?? { rest: 0, mcp: 0, bypasses: 0 };
    tally[surface] += 1;
    if (!refused) tally.bypasses += 1;
    sent.set(credential.label, tally);
  };

  /** OAuth tokens for /api/v1 and /mcp, through the real flow: `apiKey`'s holder consents to `companies` with every scope. */
  async function oauthCredential(label: string, apiKey: string, companyId: string): Promise<Credential> {
    const client = await registerClient(server.origin, 'http://127.0.0.1:49152/callback');
    const sessions = new Map<ProtectedResource, OAuthSession>();
    for (const resource of Object.keys(PROTECTED_RESOURCES) as ProtectedResource[]) {
      sessions.set(
        resource,
        await OAuthSession.grant({
          origin: server.origin,
          client,
          apiKey,
          resource: resourceUri(server.origin, resource),
          scopes: SCOPES,
          companies: [companyId],
        }),
      );
    }
    const bearer = (resource: ProtectedResource) => sessions.get(resource)!.accessToken();
    return { label, companyId, bearer, mcp: await connectInProcess(app, { bearer: () => bearer('mcp') }) };
  }

  beforeAll(async () => {
    server = await startOAuthServer(target, { config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128' } });
    app = server.app;
    const db = server.t.services.database.prisma;
    owner = await makeTenant(db);
    intruder = await makeTenant(db);
    // The owner has connected an agent before: its grant is one of the owner's resources (listOAuthGrants teaches its id).
    await OAuthSession.grant({
      origin: server.origin,
      client: await registerClient(server.origin, 'http://127.0.0.1:49152/callback'),
      apiKey: owner.key,
      resource: resourceUri(server.origin, 'api'),
      scopes: ['companies:read'],
      companies: [owner.companyId],
    });

    for (const op of registry.operations) {
      const companyId = exampleParams(op)[COMPANY_PARAM];
      if (companyId) realIds.set(companyId, owner.companyId);
    }
    // The owner builds its books through the API, learning each created id from the live answer.
    const pending = registry.operations.filter((op) => !isPublic(op) && phase(op) < 3);
    for (;;) {
      const ready = pending.filter((op) => ownerParams(op) !== null).sort((a, b) => phase(a) - phase(b));
      const op = ready[0];
      if (!op) break;
      pending.splice(pending.indexOf(op), 1);
      const response = await send(op, ownerParams(op)!, owner.key);
      if (response.status >= 200 && response.status < 300 && op.output && op.examples.response !== undefined) {
        learnIds(op.output.parse(op.examples.response), response.body?.data);
        replayed.push(op.id);
      }
    }
    // Lists read before the writes were empty; read them again to learn the ids writes produced (events, deliveries).
    for (const op of registry.operations.filter((o) => !isPublic(o) && phase(o) === 0)) {
      const params = ownerParams(op);
      if (!params) continue;
      const response = await send(op, params, owner.key);
      if (response.status === 200 && op.output && op.examples.response !== undefined) learnIds(op.output.parse(op.examples.response), response.body?.data);
    }

    // The intruder's credentials, made once the owner's ids are known (so no probe can name a grant of these).
    credentials.push({
      label: 'API key',
      companyId: intruder.companyId,
      bearer: async () => intruder.key,
      mcp: await connectInProcess(app, { key: intruder.key }),
    });
    credentials.push(await oauthCredential('OAuth token of another user', intruder.key, intruder.companyId));
    // The owner's own grant for its second company: a grant's companies bound it as a membership does.
    const second = await makeCompany(db);
    await createMembership(db, { userId: owner.userId, companyId: second, role: 'owner' });
    credentials.push(await oauthCredential("OAuth token of the owner's, granted another company", owner.key, second));
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    if (randomFor.size > 0) {
      console.info(`tenancy matrix (${target}): no example created a real id for ${[...randomFor].sort().join(', ')}; those probes used a random uuid`);
    }
    for (const [label, tally] of sent)
      console.info(`tenancy matrix (${target}), ${label}: ${tally.rest} REST requests, ${tally.mcp} MCP tool calls, ${tally.bypasses} bypasses`);
    for (const credential of credentials) await credential.mcp.close();
    await server?.close();
  });

  it('covers operations from the registry and probes most of them with real ids, with every credential', () => {
    expect(guarded.length).toBeGreaterThan(0);
    // The replay really built resources: more ids than the company's were learned.
    expect(new Set(realIds.values()).size).toBeGreaterThan(1);
    expect(replayed.length).toBeGreaterThan(0);
    expect(credentials.map((credential) => credential.label)).toHaveLength(3);
  });

  it('every credential acts on its own company (so a 404 below is tenancy, not a dead credential)', async () => {
    const read = registry.operations.find((op) => op.id === 'getCompany')!;
    for (const credential of credentials) {
      const own = await send(read, { [COMPANY_PARAM]: credential.companyId }, await credential.bearer('api'));
      expect(own.status, `${credential.label}: ${own.text}`).toBe(200);
      const tool = await credential.mcp.callTool({
        name: tools.get(read.id)!.name,
        arguments: toolArguments(tools.get(read.id)!, { [COMPANY_PARAM]: credential.companyId }),
      });
      expect(tool.isError, `${credential.label}: ${JSON.stringify(tool)}`).toBeFalsy();
    }
  });

  it.each(guarded.map((op) => [op.id, op] as const))('REST %s', async (_id, op) => {
    for (const credential of credentials) {
      for (const probe of probes(op, credential.companyId)) {
        const foreign = await send(op, probe.params, await credential.bearer('api'));
        count(credential, 'rest', foreign.status === 404 && foreign.body?.data === undefined);
        const context = `${op.id} with ${probe.label}, as ${credential.label}: ${foreign.text}`;
        expect(foreign.status, context).toBe(404);
        expect(foreign.body?.error?.code, context).toBe('NOT_FOUND');
        expect(foreign.body?.data, context).toBeUndefined();

        // Exactly like an id nobody has: same status, same body once ids and request ids are masked.
        const twin = unknownTwin(probe);
        const unknown = await send(op, twin, await credential.bearer('api'));
        count(credential, 'rest', true);
        expect(unknown.status, `${op.id} unknown twin, as ${credential.label}: ${unknown.text}`).toBe(404);
        const order = pathParamNames(op);
        expect(
          normalise(
            foreign.text,
            order.map((n) => probe.params[n]!),
          ),
          context,
        ).toEqual(
          normalise(
            unknown.text,
            order.map((n) => twin[n]!),
          ),
        );
      }
    }
  });

  const mcpGuarded = guarded.filter((op) => tools.has(op.id));
  it.each(mcpGuarded.map((op) => [op.id, op] as const))('MCP %s', async (_id, op) => {
    const entry = tools.get(op.id)!;
    for (const credential of credentials) {
      for (const probe of probes(op, credential.companyId)) {
        const result = await credential.mcp.callTool({ name: entry.name, arguments: toolArguments(entry, probe.params, realIds) });
        count(credential, 'mcp', result.isError === true && result.structuredContent === undefined);
        const context = `${entry.name} with ${probe.label}, as ${credential.label}: ${JSON.stringify(result)}`;
        expect(result.isError, context).toBe(true);
        expect(firstJson(result).error?.code, context).toBe('NOT_FOUND');
        expect(result.structuredContent, context).toBeUndefined();
      }
    }
  });

  it("left every one of the owner's resources as it was (the intruder's writes and deletes did nothing)", async () => {
    const reads = guarded.filter((op) => op.method === 'GET' && phase(op) === 0 && ownerParams(op) !== null);
    expect(reads.length).toBeGreaterThan(0);
    for (const op of reads) {
      const response = await send(op, ownerParams(op)!, owner.key);
      expect(response.status, `${op.id}: ${response.text}`).toBe(200);
    }
  });
});
