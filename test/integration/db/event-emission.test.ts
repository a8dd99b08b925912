import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeWebhook } from '../../helpers/factories.ts';
import { emitEvent, type EmittedEvent } from '../../../domain/events/emit.ts';
import { withTransaction, type OperationContext } from '../../../domain/context.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';

/** emitEvent is an outbox: the event and its deliveries commit or roll back with the caller. */

const NOW = new Date('2026-11-20T10:00:00.000Z');

describe.each(DB_TARGETS)('emitEvent (%s)', (target) => {
  let t: TestServices;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
  });
  afterAll(async () => t?.close());

  const context = (): OperationContext => ({
    services: t.services,
    actor: null,
    requestId: 'test',
    db: t.services.database.prisma,
    inTransaction: false,
    dryRun: false,
  });

  async function insertWebhook(companyId: string, eventType: string, options: { disabled?: boolean } = {}): Promise<string> {
    return makeWebhook(t.services, { companyId, eventType, name: 'test hook', ...options });
  }

  /** The company as the `company.updated` catalogue object. */
  async function companyObject(companyId: string): Promise<Record<string, unknown>> {
    const company = await t.services.database.prisma.company.findUniqueOrThrow({ where: { id: companyId } });
    return {
      id: company.id,
      name: company.name,
      org_number: company.orgNumber,
      entity_type: company.entityType,
      livemode: company.livemode,
      updated_at: company.updatedAt.toISOString(),
    };
  }

  async function written(companyId: string): Promise<{ events: number; deliveries: number }> {
    const prisma = t.services.database.prisma;
    return {
      events: await prisma.event.count({ where: { companyId } }),
      deliveries: await prisma.webhookDelivery.count({ where: { companyId } }),
    };
  }

  it('leaves no event and no delivery when the surrounding transaction rolls back', async () => {
    const companyId = await makeCompany(t.services.database.prisma);
    await insertWebhook(companyId, 'company.updated');
    const object = await companyObject(companyId);
    let emitted: EmittedEvent | undefined;

    const run = withTransaction(context(), async (tx) => {
      emitted = await emitEvent(tx, companyId, 'company.updated', object, null);
      throw new Error('roll back');
    });

    await expect(run).rejects.toThrow('roll back');
    // The emit itself succeeded and queued a delivery before the rollback discarded it.
    expect(emitted?.deliveries).toBe(1);
    expect(await written(companyId)).toEqual({ events: 0, deliveries: 0 });
    expect(await t.services.database.prisma.event.findUnique({ where: { id: emitted!.eventId } })).toBeNull();
  });

  it('throws and writes nothing when the object does not match the catalogue schema', async () => {
    const companyId = await makeCompany(t.services.database.prisma);
    await insertWebhook(companyId, 'company.updated');
    const { org_number: _omitted, ...incomplete } = await companyObject(companyId);

    await expect(emitEvent(context(), companyId, 'company.updated', incomplete, null)).rejects.toThrow();
    await expect(emitEvent(context(), companyId, 'company.updated', { ...incomplete, org_number: '556000-0000', livemode: 'yes' }, null)).rejects.toThrow();
    expect(await written(companyId)).toEqual({ events: 0, deliveries: 0 });
  });

  describe('a committed emit', () => {
    let companyId: string;
    let otherCompanyId: string;
    let matching: string[];
    let disabled: string;
    let otherType: string;
    let otherCompany: string;
    let object: Record<string, unknown>;
    let emitted: EmittedEvent;

    beforeAll(async () => {
      companyId = await makeCompany(t.services.database.prisma, { livemode: true });
      otherCompanyId = await makeCompany(t.services.database.prisma, { livemode: true });
      matching = [await insertWebhook(companyId, 'company.updated'), await insertWebhook(companyId, 'company.updated')];
      disabled = await insertWebhook(companyId, 'company.updated', { disabled: true });
      otherType = await insertWebhook(companyId, 'account.created');
      otherCompany = await insertWebhook(otherCompanyId, 'company.updated');
      object = await companyObject(companyId);
      emitted = await emitEvent(context(), companyId, 'company.updated', object, { name: 'Old name AB' });
    });

    const deliveries = () => t.services.database.prisma.webhookDelivery.findMany({ where: { eventId: emitted.eventId }, orderBy: { webhookId: 'asc' } });

    it('creates exactly one event', async () => {
      const events = await t.services.database.prisma.event.findMany({ where: { companyId } });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        id: emitted.eventId,
        type: 'company.updated',
        apiVersion: API_VERSION,
        livemode: true,
        createdAt: NOW,
      });
    });

    it('creates one pending delivery per active webhook of the company subscribed to the type', async () => {
      expect(emitted.deliveries).toBe(2);
      const rows = await deliveries();
      expect(rows.map((row) => row.webhookId)).toEqual([...matching].sort());
      for (const row of rows) {
        expect(row).toMatchObject({
          companyId,
          eventType: 'company.updated',
          status: 'pending',
          attempts: 0,
          nextAttemptAt: NOW,
          isTest: false,
        });
      }
    });

    it('creates no delivery for a disabled webhook, another event type or another company', async () => {
      const count = await t.services.database.prisma.webhookDelivery.count({
        where: { webhookId: { in: [disabled, otherType, otherCompany] } },
      });
      expect(count).toBe(0);
      expect(await written(otherCompanyId)).toEqual({ events: 0, deliveries: 0 });
    });

    it('gives the event and every delivery the documented payload, whose id is the event id', async () => {
      const expected = {
        id: emitted.eventId,
        type: 'company.updated',
        api_version: API_VERSION,
        created_at: NOW.toISOString(),
        company_id: companyId,
        livemode: true,
        data: { object, previous_attributes: { name: 'Old name AB' } },
      };
      const event = await t.services.database.prisma.event.findUniqueOrThrow({ where: { id: emitted.eventId } });
      expect(event.payload).toStrictEqual(expected);
      for (const row of await deliveries()) {
        expect(row.eventId).toBe((row.payload as { id: string }).id);
        expect(row.payload).toStrictEqual(expected);
      }
    });
  });
});
