import { generatedSie } from '../../helpers/sie.ts';
import { attachDocument } from '../../../domain/documents/attachments.ts';
import { uploadDocument } from '../../../domain/documents/documents.ts';
import { PDF, blobOf, send as sendForm } from '../../helpers/documents.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, systemContext, type Tenant } from '../../helpers/factories.ts';
import { emitEvent } from '../../../domain/events/emit.ts';
import { EVENT_CATALOG } from '../../../domain/events/types.ts';
import { call } from '../../helpers/http.ts';
import { dereference, discoveryApp, responseValidator, type Dereferenced } from '../../helpers/discovery.ts';
import { registry } from '../../../registry/index.ts';
import { isPublic } from '../../../registry/define-operation.ts';
import { fullPath, type DescribedOperation } from '../../../discovery/operation-traits.ts';
import { createJournalEntry } from '../../../domain/ledger/entries.ts';
import { commitJournalEntry } from '../../../domain/ledger/commit.ts';
import { insertFiscalYear } from '../../../domain/ledger/fiscal-years.ts';
import { approveSalaryRun, bookSalaryRun, createSalaryRun } from '../../../domain/payroll/salary-runs.ts';
import type { OperationContext } from '../../../domain/context.ts';
import { SCOPES } from '../../../domain/kernel/scopes.ts';
import { authenticateKey } from '../../../domain/apikeys/keys.ts';
import { createGrant } from '../../../domain/oauth/grants.ts';
import { GRANT_ID } from '../../../registry/operations/platform/examples.ts';
import { byteSourceOf } from '../../../domain/kernel/byte-source.ts';

/**
 * Every worked example in /api/v1/openapi.json?examples=all (a superset of openapi.json's) is replayed against the real app, and each live
 * answer is validated against the schema the document gives for it (ajv, draft 2020-12). So a
 * documented shape that the API does not really send fails here.
 */

const operations = registry.operations;

// That every example parses with its own schema is the registry's load-time check (the registry
// could not even be imported otherwise); test/unit/registry-load.test.ts proves that check bites.

/**
 * State the replay cannot reach through the API alone, keyed by operation id. A new operation
 * that needs one fails the replay with its error, pointing here.
 */
type Fixture = (t: TestServices, params: Record<string, string>) => Promise<void>;
const FIXTURES: Record<string, Fixture> = {
  // Only the dispatcher makes a delivery terminal; a retry is refused for live ones.
  // Events come from writes; the feed's example is one catalogue event emitted in the tenant's company.
  listEvents: async (t, params) => {
    const object = { ...(EVENT_CATALOG['journal_entry.committed'].example as object), company_id: params.companyId };
    await emitEvent(systemContext(t.services), params.companyId!, 'journal_entry.committed', object, null);
  },
  retryWebhookDelivery: async (t, params) => {
    await t.services.database.prisma.webhookDelivery.update({
      where: { id: params.id! },
      data: { status: 'delivered', attempts: 1, responseStatus: 200 },
    });
  },
  // The example entry is still a draft when reversals come up (creates run before updates), so
  // reverse a committed entry of its own.
  reverseJournalEntry: async (t, params) => {
    const ctx = actingContext(t);
    const entry = await createJournalEntry(ctx, params.companyId!, {
      date: '2026-11-12',
      description: 'To be reversed',
      lines: [
        { account: '6110', debit: 100 },
        { account: '1930', credit: 100 },
      ],
    });
    await commitJournalEntry(ctx, params.companyId!, entry.id);
    params.entryId = entry.id;
  },
};

/** Drafts an entry for deletion: the example's own entry was committed by then. */
FIXTURES.deleteJournalEntry = async (t, params) => {
  const entry = await createJournalEntry(actingContext(t), params.companyId!, {
    date: '2026-11-12',
    description: 'To be deleted',
    lines: [
      { account: '6110', debit: 100 },
      { account: '1930', credit: 100 },
    ],
  });
  params.entryId = entry.id;
};

/** Closes a year of its own (the next one, all periods locked) so the example's year stays open for the others. */
FIXTURES.closeFiscalYear = async (t, params) => {
  const prisma = t.services.database.prisma;
  const latest = await prisma.fiscalYear.findFirstOrThrow({ where: { companyId: params.companyId! }, orderBy: { startDate: 'desc' } });
  const start = new Date(latest.endDate.getTime() + 86_400_000).toISOString().slice(0, 10);
  const year = await insertFiscalYear(prisma, params.companyId!, start, `${Number(start.slice(0, 4))}-12-31`);
  await prisma.period.updateMany({ where: { fiscalYearId: year.id }, data: { lockedAt: new Date() } });
  params.fiscalYearId = year.id;
};

/** A salary run of its own for each transition, so each example meets a run in the state it needs. */
async function salaryRun(t: TestServices, params: Record<string, string>, period: string, steps: ('approve' | 'book')[]): Promise<void> {
  const ctx = actingContext(t);
  const existing = await t.services.database.prisma.salaryRun.findFirst({
    where: { companyId: params.companyId!, period: new Date(`${period}-01T00:00:00.000Z`), status: 'draft' },
  });
  const run = existing ?? (await createSalaryRun(ctx, params.companyId!, { period }));
  if (steps.includes('approve')) await approveSalaryRun(ctx, params.companyId!, run.id);
  if (steps.includes('book')) await bookSalaryRun(ctx, params.companyId!, run.id);
  params.salaryRunId = run.id;
}
// A VAT return covers locked periods only: lock the example's quarter.
FIXTURES.generateVatReturn = async (t, params) => {
  await t.services.database.prisma.period.updateMany({
    where: { companyId: params.companyId!, startDate: { gte: new Date('2026-01-01T00:00:00.000Z'), lte: new Date('2026-03-01T00:00:00.000Z') } },
    data: { lockedAt: new Date() },
  });
};
// The example's operation was cancelled by then: delete a queued one of its own.
FIXTURES.deleteOperation = async (t, params) => {
  const queued = await t.services.database.prisma.operation.create({ data: { companyId: params.companyId!, kind: 'close_fiscal_year', input: {} } });
  params.operationId = queued.id;
};
// The example document was attached to the committed example entry by then (evidence stays):
// detach it from a draft of its own, and delete a document of its own.
FIXTURES.detachDocument = async (t, params) => {
  const ctx = actingContext(t);
  const draft = await createJournalEntry(ctx, params.companyId!, {
    date: '2026-11-12',
    description: 'Draft with a receipt',
    lines: [
      { account: '6110', debit: 100 },
      { account: '1930', credit: 100 },
    ],
  });
  await attachDocument(ctx, params.companyId!, params.documentId!, draft.id);
  params.entryId = draft.id;
};
FIXTURES.deleteDocument = async (t, params) => {
  const own = await uploadDocument(actingContext(t), params.companyId!, {
    filename: 'egen.pdf',
    content: byteSourceOf(Buffer.concat([PDF, Buffer.from(randomUUID())])),
  });
  params.documentId = own.id;
};
FIXTURES.generateAgi = (t, params) => salaryRun(t, params, '2026-11', ['approve', 'book']);
FIXTURES.approveSalaryRun = (t, params) => salaryRun(t, params, '2026-10', []);
FIXTURES.bookSalaryRun = (t, params) => salaryRun(t, params, '2026-09', ['approve']);
FIXTURES.cancelSalaryRun = (t, params) => salaryRun(t, params, '2026-08', []);

/** A context acting with every scope, for fixtures that need domain verbs. */
const actingContext = (t: TestServices): OperationContext => ({
  services: t.services,
  actor: { apiKeyId: randomUUID(), apiKeyName: 'fixture', userId: randomUUID(), companyId: null, scopes: [...SCOPES], mode: 'test', rateLimitPerMinute: 600 },
  requestId: 'fixture',
  db: t.services.database.prisma,
  inTransaction: false,
  dryRun: false,
});

/** Declared events a call emits only in a case its example does not show, by operation id. */
const NOT_EMITTED_BY_EXAMPLE: Record<string, readonly string[]> = {
  // The example's quarter has no VAT to settle, so no settlement entry is booked.
  submitVatReturn: ['journal_entry.committed'],
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads before creates before updates before deletes, so nothing is gone or changed too early. */
const phase = (op: DescribedOperation): number => (op.sideEffects.includes('delete') ? 2 : op.sideEffects.includes('update') ? 1 : 0);

describe.each(DB_TARGETS)('documented examples replayed against the app (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof discoveryApp>;
  let tenant: Tenant;
  let documented: Dereferenced;
  let validate: ReturnType<typeof responseValidator>;
  /** Example id → the real id it stands for, learned from live answers. */
  const realIds = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestServices(target);
    app = discoveryApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    // The document with every body's example (openapi.json keeps those spec Endpoints 10 asks for, a subset).
    const served = await call(app, 'GET', '/api/v1/openapi.json?examples=all');
    expect(served.status).toBe(200);
    documented = await dereference(served.body);
    validate = responseValidator(documented);
    for (const op of operations) {
      const companyId = (op.examples.params as Record<string, string> | undefined)?.companyId;
      if (companyId) realIds.set(companyId, tenant.companyId);
    }
    // A grant comes from a person's consent on the OAuth page, not from an operation: record one
    // as that page does, so listOAuthGrants and revokeOAuthGrant replay against a real grant.
    const signer = await authenticateKey(t.services.database.prisma, tenant.key, 1000);
    const grant = await createGrant(
      { ...systemContext(t.services), actor: signer },
      { providerGrantId: 'replay', clientId: 'replay-client', clientName: 'Replay agent', scopes: ['companies:read'], companyIds: [tenant.companyId] },
    );
    realIds.set(GRANT_ID, grant.id);
  });
  afterAll(async () => t?.close());

  /** How many events of each type the tenant's company has. */
  async function eventCounts(): Promise<Map<string, number>> {
    const rows = await t.services.database.prisma.$queryRaw<{ type: string; n: number }[]>`
      SELECT type, count(*)::int AS n FROM events WHERE company_id = ${tenant.companyId}::uuid GROUP BY type`;
    return new Map(rows.map((row) => [row.type, row.n]));
  }

  /** The event types that gained events since `before`, sorted. */
  async function emittedSince(before: Map<string, number>): Promise<string[]> {
    const after = await eventCounts();
    return [...after]
      .filter(([type, n]) => n > (before.get(type) ?? 0))
      .map(([type]) => type)
      .sort();
  }

  /** Pairs ids in an example answer with the live answer's, wherever both have a uuid. */
  function learnIds(example: unknown, live: unknown): void {
    if (typeof example === 'string' && typeof live === 'string') {
      if (UUID.test(example) && UUID.test(live) && !realIds.has(example)) realIds.set(example, live);
    } else if (Array.isArray(example) && Array.isArray(live)) {
      for (const [i, item] of example.entries()) learnIds(item, live[i]);
    } else if (example && live && typeof example === 'object' && typeof live === 'object') {
      for (const [key, value] of Object.entries(example)) learnIds(value, (live as Record<string, unknown>)[key]);
    }
  }

  /** The example body with every example id already learned replaced by its real one (e.g. attachDocument's journal_entry_id). */
  function withRealIds(value: unknown): unknown {
    if (typeof value === 'string') return realIds.get(value) ?? value;
    if (Array.isArray(value)) return value.map(withRealIds);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withRealIds(item)]));
    return value;
  }

  /** The example's path params with real ids; null while an id is not known yet. */
  function realParams(op: DescribedOperation): Record<string, string> | null {
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries((op.examples.params ?? {}) as Record<string, unknown>)) {
      const text = String(value);
      const real = realIds.get(text);
      if (UUID.test(text) && !real) return null;
      params[name] = real ?? text;
    }
    return params;
  }

  it('answers every documented request with the documented status and a body matching the documented schema', async () => {
    const pending = [...operations];
    const replayed: string[] = [];
    const wrongEmits: string[] = [];
    while (pending.length > 0) {
      const ready = pending.filter((op) => realParams(op) !== null).sort((a, b) => phase(a) - phase(b));
      const op = ready[0];
      if (!op) throw new Error(`no real ids for the examples of ${pending.map((o) => o.id).join(', ')}`);
      pending.splice(pending.indexOf(op), 1);

      const params = realParams(op)!;
      await FIXTURES[op.id]?.(t, params);
      const path = fullPath(op).replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
      const query = new URLSearchParams(Object.entries((op.examples.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
      const url = `${path}${query.size > 0 ? `?${query}` : ''}`;
      const headers: Record<string, string> = op.idempotencyKey === 'none' ? {} : { 'idempotency-key': randomUUID() };
      const eventsBefore = await eventCounts();
      // An upload has no worked example (spec Endpoints 10): a real file beside the example's fields.
      const response = op.input.file
        ? await sendForm(app, tenant.key, url, uploadForm(op.id, op.input.file.field, op.examples.body), headers)
        : await call(app, op.method, url, {
            ...(isPublic(op) ? {} : { key: tenant.key }),
            ...(op.examples.body !== undefined && { body: withRealIds(op.examples.body) }),
            headers,
          });

      expect(response.status, `${op.id}: ${response.text}`).toBe(op.status);
      expect(response.headers.get('x-request-id'), op.id).toMatch(/^req_/);
      if (op.binaryResponse) {
        // A stored file: its own type, its bytes, no envelope.
        expect(op.binaryResponse.contentTypes, op.id).toContain(response.headers.get('content-type'));
        expect(response.text.length, op.id).toBeGreaterThan(0);
        expect(response.headers.get('etag'), op.id).toMatch(/^"[0-9a-f]{64}"$/);
      } else if (op.output === null && op.produces?.length) {
        // A binary-only answer: the first declared representation, bytes without an envelope.
        expect(response.headers.get('content-type'), op.id).toBe(op.produces[0]?.mediaType);
        expect(response.text.length, op.id).toBeGreaterThan(0);
        expect(response.body, op.id).toBeNull();
      } else if (op.output === null) {
        expect(response.text, op.id).toBe('');
      } else {
        const result = validate(op.path, op.method, op.status, response.body);
        expect(result.documented, `${op.id}: no documented schema for ${op.status}`).toBe(true);
        expect(result.errors, `${op.id}: live answer breaks the documented schema`).toBeNull();
        learnIds(op.output.parse(op.examples.response), response.body.data);
      }
      // The events the call emitted (in its own transaction) are exactly the ones it declares.
      const emitted = await emittedSince(eventsBefore);
      const declared = (op.emits ?? []).filter((type) => !NOT_EMITTED_BY_EXAMPLE[op.id]?.includes(type));
      if (emitted.join() !== [...declared].sort().join()) wrongEmits.push(`${op.id} emitted [${emitted}], declares [${declared}]`);
      replayed.push(op.id);
    }
    expect(replayed.sort()).toEqual(operations.map((op) => op.id).sort());
    expect(wrongEmits, 'operations whose emitted events differ from their declared emits').toEqual([]);
    // The validator is live: a body that breaks the documented schema is caught.
    expect(validate('/health', 'GET', 200, { data: { status: 'broken' }, meta: {} }).errors).not.toBeNull();
  });

  it('answers documented errors with bodies matching the documented Error schema', async () => {
    const unknownId = '00000000-0000-4000-8000-000000000000';
    for (const op of operations) {
      const withUnknownIds = fullPath(op).replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'capabilityId' ? 'accounting.no_such_thing' : unknownId));
      const checks: { key?: string; status: number }[] = [];
      if (!isPublic(op)) checks.push({ status: 401 });
      if (op.path.includes('{')) checks.push({ key: tenant.key, status: 404 });
      for (const check of checks) {
        const response = await call(app, op.method, withUnknownIds, {
          ...(check.key && { key: check.key }),
          ...(op.examples.body !== undefined && { body: op.examples.body }),
          headers: op.idempotencyKey === 'none' ? {} : { 'idempotency-key': randomUUID() },
        });
        expect(response.status, `${op.id}: ${response.text}`).toBe(check.status);
        const result = validate(op.path, op.method, check.status, response.body);
        expect(result.documented, `${op.id}: ${check.status} is not documented`).toBe(true);
        expect(result.errors, op.id).toBeNull();
        // Under its own status or under `default`, the response names the code it answered with.
        expect(result.description, op.id).toContain((response.body as { error: { code: string } }).error.code);
      }
    }
  });
});

/** A real file for each operation that takes one (examples document the fields beside it, not the bytes). */
const EXAMPLE_FILES: Record<string, Buffer> = { uploadDocument: PDF, importSie: generatedSie(2) };

/** A multipart upload: the operation's example file in the file part and the example's text fields. */
function uploadForm(opId: string, field: string, fields: unknown): FormData {
  const file = EXAMPLE_FILES[opId];
  if (!file) throw new Error(`${opId} takes a file: add one to EXAMPLE_FILES`);
  const form = new FormData();
  form.append(field, blobOf(file), 'example');
  for (const [name, value] of Object.entries((fields ?? {}) as Record<string, unknown>)) form.append(name, String(value));
  return form;
}
