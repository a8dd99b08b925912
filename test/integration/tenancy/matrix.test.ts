import { PDF } from '../../helpers/documents.ts';
import { FILE_CONTENT_ARG } from '../../../mcp/arguments.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { connectInProcess, firstJson } from '../../helpers/mcp-client.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { isPublic, type Operation } from '../../../registry/define-operation.ts';
import { mountMcp } from '../../../mcp/http.ts';
import { IDEMPOTENCY_ARG, compileTools, type ToolEntry } from '../../../mcp/tools.ts';
import { DEFAULT_VARIANT } from '../../../mcp/naming.ts';
import { fullPath, pathParamNames, requestContentType } from '../../../discovery/operation-traits.ts';

/**
 * The tenancy matrix, generated from the registry: every operation with a path id, called by a
 * real second tenant (every scope, its own company) with the first tenant's ids, answers 404 with
 * no data, byte-for-byte like an id nobody has — over REST and over MCP. Ids are real: the first
 * tenant replays the documented examples (reads, creates, updates; never deletes) and the ids in
 * the live answers are learned, so a new operation with examples is covered with no edit here.
 * An id no example produces falls back to a random uuid, and the suite prints which.
 */

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

/** Substitutes learned ids for example ids anywhere in an example value (bodies may name resources). */
function withIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => withIds(item, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIds(v, ids)]));
  return value;
}

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

interface Probe {
  label: string;
  params: Record<string, string>;
  /** The first tenant's ids in the path: none may appear in the answer's data. */
  foreignIds: string[];
}

describe.each(DB_TARGETS)('tenancy matrix: another company gets 404 for every operation with a path id (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let owner: Tenant;
  let intruder: Tenant;
  let mcp: Client;
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

  const exampleParams = (op: Operation): Record<string, string> =>
    Object.fromEntries(Object.entries((op.examples.params ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));

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

  const pathOf = (op: Operation, params: Record<string, string>): string => {
    const path = fullPath(op).replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
    const query = new URLSearchParams(Object.entries((op.examples.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    return `${path}${query.size > 0 ? `?${query}` : ''}`;
  };

  const send = (op: Operation, params: Record<string, string>, key: string) =>
    call(app, op.method, pathOf(op, params), {
      key,
      ...(op.examples.body !== undefined && requestContentType(op) === 'application/json' && { body: withIds(op.examples.body, realIds) }),
      headers: op.idempotencyKey === 'none' ? {} : { 'idempotency-key': randomUUID() },
    });

  /** The probes for one operation: the owner's company with its ids, and the intruder's own company with the owner's resource ids. */
  function probes(op: Operation): Probe[] {
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
        params: { ...resolved, [COMPANY_PARAM]: intruder.companyId },
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

  beforeAll(async () => {
    t = await createTestServices(target, { config: { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128' } });
    app = createApp(t.services, registry, [mountMcp]);
    const db = t.services.database.prisma;
    owner = await makeTenant(db);
    intruder = await makeTenant(db);
    mcp = await connectInProcess(app, { key: intruder.key });

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
  });

  afterAll(async () => {
    if (randomFor.size > 0) {
      console.info(`tenancy matrix (${target}): no example created a real id for ${[...randomFor].sort().join(', ')}; those probes used a random uuid`);
    }
    await mcp?.close();
    await t?.close();
  });

  it('covers operations from the registry and probes most of them with real ids', () => {
    expect(guarded.length).toBeGreaterThan(0);
    // The replay really built resources: more ids than the company's were learned.
    expect(new Set(realIds.values()).size).toBeGreaterThan(1);
    expect(replayed.length).toBeGreaterThan(0);
  });

  it.each(guarded.map((op) => [op.id, op] as const))('REST %s', async (_id, op) => {
    for (const probe of probes(op)) {
      const foreign = await send(op, probe.params, intruder.key);
      const context = `${op.id} with ${probe.label}: ${foreign.text}`;
      expect(foreign.status, context).toBe(404);
      expect(foreign.body?.error?.code, context).toBe('NOT_FOUND');
      expect(foreign.body?.data, context).toBeUndefined();

      // Exactly like an id nobody has: same status, same body once ids and request ids are masked.
      const twin = unknownTwin(probe);
      const unknown = await send(op, twin, intruder.key);
      expect(unknown.status, `${op.id} unknown twin: ${unknown.text}`).toBe(404);
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
  });

  const mcpGuarded = guarded.filter((op) => tools.has(op.id));
  it.each(mcpGuarded.map((op) => [op.id, op] as const))('MCP %s', async (_id, op) => {
    const entry = tools.get(op.id)!;
    for (const probe of probes(op)) {
      const body = op.examples.body !== undefined ? withIds(op.examples.body, realIds) : undefined;
      const query = (op.examples.query ?? {}) as Record<string, unknown>;
      // In the tool's own argument names (company_id, entry_id, …), through its argument map.
      const args: Record<string, unknown> = {};
      const put = (part: 'params' | 'query' | 'body', values: Record<string, unknown>) => {
        for (const [key, value] of Object.entries(values)) args[entry.argumentFor(part, key) ?? key] = value;
      };
      put('params', probe.params);
      put('query', query);
      if (body !== undefined) {
        if (body !== null && typeof body === 'object' && !Array.isArray(body)) put('body', body as Record<string, unknown>);
        else args.body = body;
      }
      if (op.input.file) args[FILE_CONTENT_ARG] = PDF.toString('base64');
      if (op.idempotencyKey !== 'none') args[IDEMPOTENCY_ARG] = randomUUID();
      const result = await mcp.callTool({ name: entry.name, arguments: args });
      const context = `${entry.name} with ${probe.label}: ${JSON.stringify(result)}`;
      expect(result.isError, context).toBe(true);
      expect(firstJson(result).error?.code, context).toBe('NOT_FOUND');
      expect(result.structuredContent, context).toBeUndefined();
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
