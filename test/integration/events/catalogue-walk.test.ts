import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { books, OFFICE_SUPPLIES } from '../../helpers/ledger.ts';
import { PDF, uploadFile } from '../../helpers/documents.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createOperationRunner } from '../../../domain/operations/runner.ts';
import { OPERATION_KIND_RUNNERS } from '../../../domain/operations/kinds.ts';
import { EVENT_TYPES, eventEnvelopeSchemaFor, type EventType } from '../../../domain/events/types.ts';

const NOW = new Date('2027-01-15T10:00:00.000Z');
// A fictitious identity number with a valid checksum (Skatteverket's test range).
const ANNA = '19811218-9876';

/**
 * Every public event type, each triggered through the API the way a client would, reaches a
 * webhook subscribed to it as exactly one pending delivery whose payload validates against the
 * type's schema. Each type's webhook exists only around its trigger (later steps emit the same
 * types again), and the walk fails if any type of the catalogue was never reached: a new type
 * without a real emitter breaks this test.
 */
describe.each(DB_TARGETS)('the event catalogue, walked through the API (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let b: ReturnType<typeof books>;
  const walked = new Set<EventType>();
  const runner = () => createOperationRunner(t.services, { kinds: OPERATION_KIND_RUNNERS });
  const send = async (method: string, path: string, body?: unknown, expected?: number) => {
    const response = await b.send(method, path, body, method === 'POST' ? { 'idempotency-key': randomUUID() } : {});
    if (expected !== undefined) expect(response.status, `${method} ${path}: ${response.text}`).toBe(expected);
    return response.body?.data;
  };

  async function subscribe(type: EventType): Promise<string> {
    const hook = await call(app, 'POST', `/api/v1/companies/${tenant.companyId}/webhooks`, {
      key: tenant.key,
      headers: { 'idempotency-key': randomUUID() },
      body: { event_type: type, webhook_url: 'https://hooks.example.com/walk', name: type, description: '' },
    });
    expect(hook.status, hook.text).toBe(201);
    return hook.body.data.id as string;
  }

  /** Subscribes to `types`, runs the trigger, checks one valid pending delivery each, unsubscribes. */
  async function expectEach(types: EventType[], trigger: () => Promise<void>): Promise<void> {
    const hooks = new Map<EventType, string>();
    for (const type of types) hooks.set(type, await subscribe(type));
    await trigger();
    for (const [type, hookId] of hooks) {
      const deliveries = await t.services.database.prisma.webhookDelivery.findMany({ where: { webhookId: hookId } });
      expect(
        deliveries.map((d) => [d.eventType, d.status]),
        type,
      ).toEqual([[type, 'pending']]);
      const parsed = eventEnvelopeSchemaFor(type).safeParse(deliveries[0]!.payload);
      expect(parsed.success, `${type}: ${parsed.error?.message}`).toBe(true);
      walked.add(type);
      expect((await call(app, 'DELETE', `/api/v1/companies/${tenant.companyId}/webhooks/${hookId}`, { key: tenant.key })).status).toBe(204);
    }
  }

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
  });
  afterAll(async () => t?.close());

  it('reaches every public event type exactly once per trigger, each payload valid against its schema', async () => {
    await expectEach(['company.updated'], async () => {
      await call(app, 'PATCH', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key, body: { name: 'Katalog AB' } });
    });
    await expectEach(['account.created'], async () => void (await send('POST', '/accounts', { number: '6991', name: 'Övriga kostnader' }, 201)));
    await expectEach(['account.updated'], async () => void (await send('PATCH', '/accounts/6991', { name: 'Övriga externa kostnader' }, 200)));

    let entryId = '';
    await expectEach(['journal_entry.created'], async () => {
      entryId = (await send('POST', '/journal-entries', { date: '2026-03-12', description: 'Kontorsmaterial', lines: OFFICE_SUPPLIES }, 201)).id;
    });
    let documentId = '';
    await expectEach(['document.uploaded'], async () => {
      const uploaded = await uploadFile(app, tenant.key, tenant.companyId, Buffer.concat([PDF, Buffer.from(randomUUID())]), { filename: 'kvitto.pdf' });
      expect(uploaded.status, uploaded.text).toBe(201);
      documentId = uploaded.body.data.id;
    });
    await expectEach(['document.attached'], async () => void (await send('POST', `/documents/${documentId}/attachments`, { journal_entry_id: entryId }, 200)));
    await expectEach(['journal_entry.committed'], async () => void (await send('POST', `/journal-entries/${entryId}/commit`, undefined, 200)));
    await expectEach(['journal_entry.reversed'], async () => void (await send('POST', `/journal-entries/${entryId}/reverse`, { date: '2026-03-13' }, 201)));
    await expectEach(['document.deleted'], async () => {
      const other = await uploadFile(app, tenant.key, tenant.companyId, Buffer.concat([PDF, Buffer.from(randomUUID())]), { filename: 'dubblett.pdf' });
      expect((await b.send('DELETE', `/documents/${other.body.data.id}`)).status).toBe(204);
    });

    // Payroll: a salary run through its states, then the month's employer declaration.
    await send(
      'POST',
      '/employees',
      {
        name: 'Anna Lindqvist',
        personal_identity_number: ANNA,
        employment_start: '2024-03-01',
        monthly_salary: 4_200_000,
        tax_rate: 30,
        workplace_address: 'Storgatan 1',
        workplace_city: 'Malmö',
      },
      201,
    );
    let runId = '';
    await expectEach(['salary_run.created'], async () => void (runId = (await send('POST', '/salary-runs', { period: '2026-11' }, 201)).id));
    await expectEach(['salary_run.approved'], async () => void (await send('POST', `/salary-runs/${runId}/approve`, undefined, 200)));
    await expectEach(['salary_run.booked'], async () => void (await send('POST', `/salary-runs/${runId}/book`, undefined, 200)));
    const october = (await send('POST', '/salary-runs', { period: '2026-10' }, 201)).id;
    await expectEach(['salary_run.cancelled'], async () => void (await send('POST', `/salary-runs/${october}/cancel`, undefined, 200)));
    let agiId = '';
    await expectEach(
      ['agi.generated'],
      async () =>
        void (agiId = (await send('POST', '/agis', { period: '2026-11', contact: { name: 'Karin Ek', phone: '040-123 45 67', email: 'lon@exempel.se' } }, 201))
          .id),
    );
    await expectEach(['agi.submitted'], async () => void (await send('POST', `/agis/${agiId}/submit`, undefined, 200)));

    // Periods, then a VAT return over the locked first quarter.
    const year = (await send('GET', '/fiscal-years')).fiscal_years[0];
    const periods: { id: string }[] = (await send('GET', `/periods?fiscal_year_id=${year.id}`)).periods;
    await expectEach(['period.locked'], async () => void (await send('POST', `/periods/${periods[0]!.id}/lock`, undefined, 200)));
    await expectEach(['period.unlocked'], async () => void (await send('POST', `/periods/${periods[0]!.id}/unlock`, undefined, 200)));
    for (const period of periods) await send('POST', `/periods/${period.id}/lock`, undefined, 200);
    let vatId = '';
    await expectEach(
      ['vat_return.generated'],
      async () => void (vatId = (await send('POST', '/vat-returns', { period_start: '2026-01-01', period_end: '2026-03-31' }, 201)).id),
    );
    await expectEach(['vat_return.submitted'], async () => void (await send('POST', `/vat-returns/${vatId}/submit`, undefined, 200)));

    // Operations: one cancelled while queued, one failing at run time, one closing the year.
    await expectEach(['operation.cancelled'], async () => {
      const queued = await send('POST', `/fiscal-years/${year.id}/close`, undefined, 202);
      await send('POST', `/operations/${queued.id}/cancel`, undefined, 200);
    });
    await expectEach(['operation.failed'], async () => {
      const victim = await subscribe('company.updated');
      await send('POST', `/webhooks/${victim}/recover`, { since: '2026-01-01T00:00:00.000Z', until: '2027-01-01T00:00:00.000Z' }, 202);
      // Gone before the runner gets to it: the queued work is refused when it runs.
      expect((await b.send('DELETE', `/webhooks/${victim}`)).status).toBe(204);
      expect(await runner().runOnce()).toBe(true);
    });
    await expectEach(['operation.succeeded', 'fiscal_year.closed'], async () => {
      await send('POST', `/fiscal-years/${year.id}/close`, undefined, 202);
      expect(await runner().runOnce()).toBe(true);
    });
    await expectEach(['webhook.disabled'], async () => {
      const other = await subscribe('company.updated');
      await send('PATCH', `/webhooks/${other}`, { active: false }, 200);
    });

    expect([...EVENT_TYPES].filter((type) => !walked.has(type))).toEqual([]);
    expect(walked.size).toBe(24);
  });
});
