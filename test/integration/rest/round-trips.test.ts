import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeTenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { INSERT_AUDIT } from '../../../domain/audit/append.ts';
import { INSERT_EVENTS } from '../../../domain/events/emit.ts';
import { LINES_TO_COMMIT, LOCK_ENTRY, TAKE_NUMBER } from '../../../domain/ledger/commit.ts';
import { ENTRY_BY_ID } from '../../../domain/ledger/entries.ts';
import { PERIOD_FOR_DATE } from '../../../domain/ledger/periods.ts';
import { books } from '../../helpers/ledger.ts';

const BASE = '/api/v1';

/**
 * Round trips to the database per operation kind, counted from the statement log the driver
 * adapter and the bare driver report to (one entry per statement sent, BEGIN and COMMIT included,
 * on both engines) — a count, never a timing.
 */
/** Every statement the suite's services send (reset before each measurement). */
const log: string[] = [];

engineSuite(
  'database round trips per request',
  { onStatement: (sql) => log.push(sql.replace(/\s+/g, ' ').trim()), app: (services) => buildApp(services), tenant: true },
  (t) => {
    /** Sends one request and returns the statements it caused. */
    async function statementsOf(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
      log.length = 0;
      const response = await call(t.app, method, BASE + path, { key: t.tenant.key, ...options });
      expect(response.status, response.text).toBeLessThan(300);
      return { response, statements: [...log] };
    }

    /** Each statement must match its pattern, in order, and there must be no others. */
    const expectStatements = (statements: string[], patterns: RegExp[]): void => {
      expect(statements, statements.join('\n')).toHaveLength(patterns.length);
      for (const [i, pattern] of patterns.entries()) expect(statements[i], statements.join('\n')).toMatch(pattern);
    };
    const ADMISSION = /^SELECT \* FROM admit_request\(/;
    const AUDIT = /^INSERT INTO audit_log \(id, action, actor_type/;

    it('reads in exactly two: the admission (key, count, tenancy) and the read itself', async () => {
      const list = await statementsOf('GET', '/companies');
      expectStatements(list.statements, [ADMISSION, /^SELECT c\.id, c\.name/]);
      const one = await statementsOf('GET', `/companies/${t.tenant.companyId}`);
      expectStatements(one.statements, [ADMISSION, /^SELECT .* FROM "public"\."companies"/]);
    });

    it('creates in eight: admission, idempotency claim, then the transaction (lock, conditional insert, audit, stored answer)', async () => {
      const created = await statementsOf('POST', `/companies/${t.tenant.companyId}/webhooks`, {
        body: { event_type: 'company.updated', webhook_url: 'https://hooks.example.com/rt', name: 'round trips' },
        headers: { 'idempotency-key': randomUUID() },
      });
      expectStatements(created.statements, [
        ADMISSION,
        /^INSERT INTO idempotency_records .* ON CONFLICT .* DO NOTHING/,
        /^BEGIN$/,
        /^SELECT id FROM companies WHERE id = \$1::uuid FOR UPDATE$/,
        /^INSERT INTO webhooks .* WHERE \(SELECT count\(\*\) FROM webhooks/,
        AUDIT,
        /^UPDATE "public"\."idempotency_records"/,
        /^COMMIT$/,
      ]);
    });

    it('updates in six: admission, then the transaction (one UPDATE returning the old values, the event with its deliveries, audit)', async () => {
      // A webhook on company.updated, so the event really fans out to a delivery in that one statement.
      await call(t.app, 'POST', `${BASE}/companies/${t.tenant.companyId}/webhooks`, {
        key: t.tenant.key,
        body: { event_type: 'company.updated', webhook_url: 'https://hooks.example.com/fan-out', name: 'fan-out' },
        headers: { 'idempotency-key': randomUUID() },
      });
      const updated = await statementsOf('PATCH', `/companies/${t.tenant.companyId}`, { body: { name: `Renamed ${randomUUID()}` } });
      expectStatements(updated.statements, [
        ADMISSION,
        /^BEGIN$/,
        /^UPDATE companies c SET .* FROM \(SELECT .* FOR UPDATE\) old .* RETURNING/,
        /^WITH company AS .* INSERT INTO events .* INSERT INTO webhook_deliveries .* pg_notify/,
        AUDIT,
        /^COMMIT$/,
      ]);
      const deliveries = await t.services.database.prisma.webhookDelivery.count({ where: { companyId: t.tenant.companyId, eventType: 'company.updated' } });
      expect(deliveries).toBeGreaterThanOrEqual(1);
    });

    it('deletes in five: admission, then the transaction (one conditional DELETE, audit)', async () => {
      const created = await call(t.app, 'POST', `${BASE}/companies/${t.tenant.companyId}/webhooks`, {
        key: t.tenant.key,
        body: { event_type: 'company.updated', webhook_url: 'https://hooks.example.com/gone', name: 'to delete' },
        headers: { 'idempotency-key': randomUUID() },
      });
      const deleted = await statementsOf('DELETE', `/companies/${t.tenant.companyId}/webhooks/${created.body.data.id}`);
      // The DELETE locks the webhook's unfinished deliveries first, in the same statement (the dispatcher's lock order).
      const DELETE_WEBHOOK = /^\s*WITH unfinished AS \(.*FOR UPDATE\)\s*DELETE FROM webhooks\s+WHERE id = .* AND company_id = /s;
      expectStatements(deleted.statements, [ADMISSION, /^BEGIN$/, DELETE_WEBHOOK, AUDIT, /^COMMIT$/]);
      // Deleting it again: the same DELETE finds nothing, the transaction rolls back, 404 (four statements).
      log.length = 0;
      const again = await call(t.app, 'DELETE', `${BASE}/companies/${t.tenant.companyId}/webhooks/${created.body.data.id}`, { key: t.tenant.key });
      expect(again.status).toBe(404);
      expectStatements([...log], [ADMISSION, /^BEGIN$/, DELETE_WEBHOOK, /^ROLLBACK$/]);
    });

    it('commits an entry in ten: admission, then the transaction on the bare driver (lock, lines, period, number, read, event with its deliveries, audit)', async () => {
      const b = books(t.app, t.tenant.key, t.tenant.companyId);
      await b.createYear('2026-01-01');
      await call(t.app, 'POST', `${BASE}/companies/${t.tenant.companyId}/webhooks`, {
        key: t.tenant.key,
        body: { event_type: 'journal_entry.committed', webhook_url: 'https://hooks.example.com/commits', name: 'commits' },
        headers: { 'idempotency-key': randomUUID() },
      });
      const draft = await b.draft('2026-03-01', [
        { account: '6110', debit: 40_000 },
        { account: '1930', credit: 40_000 },
      ]);
      const committed = await statementsOf('POST', `/companies/${t.tenant.companyId}/journal-entries/${draft.body.data.id}/commit`);
      expect(committed.response.body.data.voucher).toMatch(/^A\d+$/);
      // The statements are the bare driver's own texts (readRows), word for word: none passes through Prisma's query interpreter.
      const exactly = (text: string) =>
        new RegExp(
          `^${text
            .replace(/\s+/g, ' ')
            .trim()
            .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
        );
      expectStatements(committed.statements, [
        ADMISSION,
        /^BEGIN$/,
        exactly(LOCK_ENTRY),
        exactly(LINES_TO_COMMIT),
        exactly(PERIOD_FOR_DATE),
        exactly(TAKE_NUMBER),
        exactly(ENTRY_BY_ID),
        exactly(INSERT_EVENTS),
        exactly(INSERT_AUDIT),
        /^COMMIT$/,
      ]);
    });

    it('answers a non-member in one: the admission already knows the company is out of reach', async () => {
      const stranger = await makeTenant(t.services.database.prisma);
      log.length = 0;
      const response = await call(t.app, 'GET', `${BASE}/companies/${stranger.companyId}`, { key: t.tenant.key });
      expect(response.status).toBe(404);
      expectStatements([...log], [ADMISSION]);
    });
  },
);
