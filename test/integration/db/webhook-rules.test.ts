import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainClaim } from '../../helpers/claim-plan.ts';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeWebhook } from '../../helpers/factories.ts';
import { CHECK_VIOLATION, sqlState } from '../../../domain/db/errors.ts';
import { DELIVERY_STATUSES, TERMINAL_STATUSES } from '../../../domain/webhooks/schemas.ts';

/**
 * The webhook invariants the migration 20261121010000_webhooks puts in the database itself:
 * exercised with raw SQL so no application code path can be what enforces them.
 */

// The domain's own lists, so the trigger is held to what the code believes is terminal.
type Status = (typeof DELIVERY_STATUSES)[number];
const TERMINAL: Status[] = DELIVERY_STATUSES.filter((status) => TERMINAL_STATUSES.includes(status));
const NON_TERMINAL: Status[] = DELIVERY_STATUSES.filter((status) => !TERMINAL_STATUSES.includes(status));

describe.each(DB_TARGETS)('webhook database rules (%s)', (target) => {
  let t: TestServices;
  let companyId: string;
  let otherCompanyId: string;

  beforeAll(async () => {
    t = await createTestServices(target);
    companyId = await makeCompany(t.services.database.prisma);
    otherCompanyId = await makeCompany(t.services.database.prisma);
  });
  afterAll(async () => t?.close());

  const execute = (sql: string, ...values: unknown[]): Promise<number> => t.services.database.prisma.$executeRawUnsafe(sql, ...values);
  const query = <T>(sql: string, ...values: unknown[]): Promise<T[]> => t.services.database.prisma.$queryRawUnsafe<T[]>(sql, ...values);

  /** The SQLSTATE a statement fails with, or null when it succeeds. */
  async function failure(run: Promise<unknown>): Promise<string | null> {
    try {
      await run;
      return null;
    } catch (error) {
      return sqlState(error);
    }
  }

  async function insertWebhook(options: { companyId?: string; eventType?: string; url?: string } = {}): Promise<string> {
    return makeWebhook(t.services, { name: 'test hook', ...options, companyId: options.companyId ?? companyId });
  }

  async function insertDelivery(options: {
    webhookId: string | null;
    companyId?: string;
    status?: Status | string;
    responseBody?: string | null;
    updatedAt?: string;
  }): Promise<string> {
    const status = options.status ?? 'pending';
    const [row] = await query<{ id: string }>(
      `INSERT INTO webhook_deliveries
         (webhook_id, company_id, event_type, payload, status, attempts, response_status, response_body, dead_reason, updated_at)
       VALUES ($1::uuid, $2::uuid, 'company.updated', '{"hello":"world"}'::jsonb, $3, $4::int, $5::int, $6, $7,
               COALESCE($8::timestamptz, now()))
       RETURNING id::text AS id`,
      options.webhookId,
      options.companyId ?? companyId,
      status,
      status === 'pending' ? 0 : 1,
      status === 'delivered' ? 200 : null,
      options.responseBody === undefined ? (status === 'delivered' ? 'ok' : null) : options.responseBody,
      status === 'dead' ? 'max_attempts_exceeded' : null,
      options.updatedAt ?? null,
    );
    return row!.id;
  }

  /** The full row as JSON text, so nothing is lost to driver type conversion. */
  async function rowJson(id: string): Promise<Record<string, unknown>> {
    const [row] = await query<{ row: string }>(`SELECT to_jsonb(d)::text AS row FROM webhook_deliveries d WHERE id = $1::uuid`, id);
    return JSON.parse(row!.row) as Record<string, unknown>;
  }

  describe('terminal deliveries', () => {
    const updates: [string, string][] = [
      // dead_reason is cleared with the status so the (status = 'dead') = (dead_reason IS NOT NULL)
      // CHECK would pass: only the immutability trigger can refuse it.
      ['status', `status = 'failed', dead_reason = NULL`],
      ['response_body', `response_body = 'changed'`],
      ['attempts', `attempts = attempts + 1`],
      ['next_attempt_at', `next_attempt_at = now() + interval '1 hour'`],
    ];

    describe.each(TERMINAL)('%s', (status) => {
      it.each(updates)('refuses an UPDATE of %s with 23514', async (_column, assignment) => {
        const id = await insertDelivery({ webhookId: await insertWebhook(), status });
        expect(await failure(execute(`UPDATE webhook_deliveries SET ${assignment} WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
        expect((await rowJson(id)).status).toBe(status);
      });

      it('refuses a DELETE with 23514', async () => {
        const id = await insertDelivery({ webhookId: await insertWebhook(), status });
        expect(await failure(execute(`DELETE FROM webhook_deliveries WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
        expect(await query(`SELECT 1 FROM webhook_deliveries WHERE id = $1::uuid`, id)).toHaveLength(1);
      });
    });
  });

  describe.each(NON_TERMINAL)('%s deliveries', (status) => {
    it('can be updated', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook(), status });
      const changed = await execute(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, response_body = 'retry later', next_attempt_at = now() + interval '1 minute'
          WHERE id = $1::uuid`,
        id,
      );
      expect(changed).toBe(1);
      expect(await rowJson(id)).toMatchObject({ status, response_body: 'retry later' });
    });

    it('can be deleted', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook(), status });
      expect(await execute(`DELETE FROM webhook_deliveries WHERE id = $1::uuid`, id)).toBe(1);
    });

    it('gets updated_at bumped on every update, even one that sets it explicitly', async () => {
      // INSERT does not fire the guard, so an old updated_at can be planted directly.
      const id = await insertDelivery({ webhookId: await insertWebhook(), status, updatedAt: '2000-01-01T00:00:00Z' });
      const updatedAt = async (): Promise<Date> =>
        (await query<{ updated_at: Date }>(`SELECT updated_at FROM webhook_deliveries WHERE id = $1::uuid`, id))[0]!.updated_at;
      expect((await updatedAt()).toISOString()).toBe('2000-01-01T00:00:00.000Z');
      const [{ before }] = (await query<{ before: Date }>(`SELECT clock_timestamp() AS before`)) as [{ before: Date }];
      await execute(`UPDATE webhook_deliveries SET attempts = attempts + 1, updated_at = '2000-01-01T00:00:00Z' WHERE id = $1::uuid`, id);
      expect((await updatedAt()).getTime()).toBeGreaterThanOrEqual(before.getTime());
    });
  });

  describe('deleting a webhook', () => {
    let webhookId: string;
    let ids: Record<Status, string>;
    let before: Record<string, Record<string, unknown>>;

    beforeAll(async () => {
      webhookId = await insertWebhook();
      ids = {} as Record<Status, string>;
      for (const status of [...TERMINAL, ...NON_TERMINAL]) ids[status] = await insertDelivery({ webhookId, status });
      before = {};
      for (const status of TERMINAL) before[status] = await rowJson(ids[status]);
      expect(await execute(`DELETE FROM webhooks WHERE id = $1::uuid`, webhookId)).toBe(1);
    });

    it('sets webhook_id NULL on all its deliveries, terminal ones included', async () => {
      const rows = await query<{ status: string; webhook_id: string | null }>(
        `SELECT status, webhook_id::text AS webhook_id FROM webhook_deliveries WHERE id = ANY($1::uuid[]) ORDER BY status`,
        Object.values(ids),
      );
      expect(rows).toHaveLength(5);
      expect(rows.every((row) => row.webhook_id === null)).toBe(true);
    });

    it.each(TERMINAL)('leaves every other column of the %s row unchanged', async (status) => {
      const { webhook_id: oldWebhookId, ...oldRest } = before[status]!;
      const { webhook_id: newWebhookId, ...newRest } = await rowJson(ids[status]);
      expect(oldWebhookId).toBe(webhookId);
      expect(newWebhookId).toBeNull();
      expect(newRest).toEqual(oldRest);
    });

    it.each(TERMINAL)('keeps the %s row immutable and undeletable afterwards', async (status) => {
      const id = ids[status];
      expect(await failure(execute(`UPDATE webhook_deliveries SET response_body = 'later' WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
      expect(await failure(execute(`DELETE FROM webhook_deliveries WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
    });
  });

  describe('a delivery belongs to its webhook’s company', () => {
    it('refuses an insert whose company differs from the webhook’s with 23514', async () => {
      const webhookId = await insertWebhook();
      expect(await failure(insertDelivery({ webhookId, companyId: otherCompanyId }))).toBe(CHECK_VIOLATION);
    });

    it('allows any company when webhook_id is NULL', async () => {
      const id = await insertDelivery({ webhookId: null, companyId: otherCompanyId });
      expect((await rowJson(id)).company_id).toBe(otherCompanyId);
    });

    it('refuses moving a non-terminal delivery with a webhook to another company with 23514', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook() });
      expect(await failure(execute(`UPDATE webhook_deliveries SET company_id = $2::uuid WHERE id = $1::uuid`, id, otherCompanyId))).toBe(CHECK_VIOLATION);
    });

    it('refuses pointing a delivery at another company’s webhook with 23514', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook() });
      const foreign = await insertWebhook({ companyId: otherCompanyId });
      expect(await failure(execute(`UPDATE webhook_deliveries SET webhook_id = $2::uuid WHERE id = $1::uuid`, id, foreign))).toBe(CHECK_VIOLATION);
    });
  });

  describe('the rest of a delivery’s lineage', () => {
    it('refuses nulling webhook_id of a terminal row by hand while its webhook exists', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook(), status: 'delivered' });
      expect(await failure(execute(`UPDATE webhook_deliveries SET webhook_id = NULL WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
    });

    it('refuses a delivery whose event type differs from its webhook’s', async () => {
      const webhookId = await insertWebhook({ eventType: 'period.locked' });
      expect(await failure(insertDelivery({ webhookId }))).toBe(CHECK_VIOLATION);
    });

    it('refuses a delivery carrying another company’s event', async () => {
      const [event] = await query<{ id: string }>(
        `INSERT INTO events (company_id, type, api_version, livemode, payload)
         VALUES ($1::uuid, 'company.updated', '2026-11-01', false, '{}'::jsonb) RETURNING id::text AS id`,
        otherCompanyId,
      );
      const id = await insertDelivery({ webhookId: null });
      expect(await failure(execute(`UPDATE webhook_deliveries SET event_id = $2::uuid WHERE id = $1::uuid`, id, event!.id))).toBe(CHECK_VIOLATION);
    });
  });

  describe('response_body is capped at 8192 bytes', () => {
    it.each([
      ['8192 ASCII bytes', 'a'.repeat(8192)],
      ['4096 × "é" (8192 bytes)', 'é'.repeat(4096)],
    ])('accepts %s', async (_label, body) => {
      const id = await insertDelivery({ webhookId: await insertWebhook(), status: 'failed', responseBody: body });
      const [row] = await query<{ bytes: number }>(`SELECT octet_length(response_body)::int AS bytes FROM webhook_deliveries WHERE id = $1::uuid`, id);
      expect(row!.bytes).toBe(8192);
    });

    it.each([
      ['8193 ASCII bytes', 'a'.repeat(8193)],
      ['4096 × "é" plus one ASCII byte (8193 bytes)', `${'é'.repeat(4096)}a`],
      ['4097 × "é" (4097 characters, 8194 bytes)', 'é'.repeat(4097)],
    ])('refuses %s with 23514', async (_label, body) => {
      expect(await failure(insertDelivery({ webhookId: await insertWebhook(), status: 'failed', responseBody: body }))).toBe(CHECK_VIOLATION);
    });

    it('refuses growing a non-terminal row’s body past the cap with 23514', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook(), status: 'failed' });
      expect(await failure(execute(`UPDATE webhook_deliveries SET response_body = $2 WHERE id = $1::uuid`, id, 'x'.repeat(8193)))).toBe(CHECK_VIOLATION);
    });
  });

  describe('other CHECKs', () => {
    it('refuses a delivery status outside the five values with 23514', async () => {
      expect(await failure(insertDelivery({ webhookId: await insertWebhook(), status: 'cancelled' }))).toBe(CHECK_VIOLATION);
    });

    it('refuses updating a delivery to an unknown status with 23514', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook() });
      expect(await failure(execute(`UPDATE webhook_deliveries SET status = 'done' WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
    });

    it('refuses a dead delivery without a dead_reason with 23514', async () => {
      const id = await insertDelivery({ webhookId: await insertWebhook(), status: 'in_flight' });
      expect(await failure(execute(`UPDATE webhook_deliveries SET status = 'dead' WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
    });

    it('refuses a webhook URL that is not https with 23514', async () => {
      expect(await failure(insertWebhook({ url: 'http://hooks.example.com/receive' }))).toBe(CHECK_VIOLATION);
    });

    it('refuses changing a webhook’s company_id with 23514', async () => {
      const id = await insertWebhook();
      expect(await failure(execute(`UPDATE webhooks SET company_id = $2::uuid WHERE id = $1::uuid`, id, otherCompanyId))).toBe(CHECK_VIOLATION);
    });

    it('refuses changing a webhook’s event_type with 23514', async () => {
      const id = await insertWebhook();
      expect(await failure(execute(`UPDATE webhooks SET event_type = 'account.created' WHERE id = $1::uuid`, id))).toBe(CHECK_VIOLATION);
    });

    it('still lets a webhook’s other fields change', async () => {
      const id = await insertWebhook();
      expect(await execute(`UPDATE webhooks SET name = 'renamed', webhook_url = 'https://other.example.com/' WHERE id = $1::uuid`, id)).toBe(1);
    });
  });

  it('plans the claim query on the webhook_deliveries_claim partial index once history is large', async () => {
    const company = await makeCompany(t.services.database.prisma);
    const webhookId = await insertWebhook({ companyId: company });
    await execute(
      `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, attempts, response_status, dead_reason, next_attempt_at)
       SELECT $1::uuid, $2::uuid, 'company.updated', '{}'::jsonb,
              CASE WHEN n % 10 = 0 THEN 'dead' ELSE 'delivered' END, 1,
              CASE WHEN n % 10 = 0 THEN NULL ELSE 200 END,
              CASE WHEN n % 10 = 0 THEN 'max_attempts_exceeded' END,
              now() - n * interval '1 minute'
         FROM generate_series(1, 2000) AS n`,
      webhookId,
      company,
    );
    for (let i = 0; i < 5; i++) await insertDelivery({ webhookId, companyId: company, status: i % 2 === 0 ? 'pending' : 'failed' });
    await execute('ANALYZE webhook_deliveries');
    const plan = await t.services.database.prisma.$transaction((tx) => explainClaim(tx));
    expect(plan).toContain('webhook_deliveries_claim');
  });
});
