import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { OFFICE_SUPPLIES, books } from '../../helpers/ledger.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { eventEnvelopeSchemaFor, type EventType } from '../../../domain/events/types.ts';
import { sqlState } from '../../../domain/db/errors.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const REQUIRED_STARTER_ACCOUNTS = [
  '1510',
  '1630',
  '1910',
  '1930',
  '2081',
  '2091',
  '2099',
  '2440',
  '2611',
  '2621',
  '2631',
  '2641',
  '2650',
  '2710',
  '2730',
  '2731',
  '2920',
  '2941',
  '3001',
  '3002',
  '3003',
  '3004',
  '3740',
  '4010',
  '5010',
  '5410',
  '6071',
  '6110',
  '6212',
  '6570',
  '7010',
  '7082',
  '7210',
  '7510',
  '7519',
  '8310',
  '8410',
  '8999',
];
const LEDGER_EVENTS: EventType[] = [
  'account.created',
  'account.updated',
  'journal_entry.created',
  'journal_entry.committed',
  'journal_entry.reversed',
  'period.locked',
  'period.unlocked',
];

describe.each(DB_TARGETS)('the ledger through HTTP (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let other: Tenant;
  let b: ReturnType<typeof books>;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    other = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    for (const type of LEDGER_EVENTS) {
      const hook = await call(app, 'POST', `/api/v1/companies/${tenant.companyId}/webhooks`, {
        key: tenant.key,
        headers: { 'idempotency-key': randomUUID() },
        body: { event_type: type, webhook_url: 'https://hooks.example.com/ledger', name: type, description: '' },
      });
      expect(hook.status, hook.text).toBe(201);
    }
    expect((await b.createYear('2026-01-01')).status).toBe(201);
  });
  afterAll(async () => t?.close());

  describe('company and chart of accounts', () => {
    it('getCompany answers the company; another company answers 404', async () => {
      const own = await call(app, 'GET', `/api/v1/companies/${tenant.companyId}`, { key: tenant.key });
      expect(own.status).toBe(200);
      expect(own.body.data).toMatchObject({ id: tenant.companyId, livemode: false });
      const foreign = await call(app, 'GET', `/api/v1/companies/${other.companyId}`, { key: tenant.key });
      expect(foreign.status).toBe(404);
    });

    it('every new company starts with the BAS starter chart, types from the class', async () => {
      const response = await b.send('GET', '/accounts');
      expect(response.status).toBe(200);
      const numbers = response.body.data.accounts.map((a: { number: string }) => a.number);
      for (const number of REQUIRED_STARTER_ACCOUNTS) expect(numbers).toContain(number);
      const byNumber = Object.fromEntries(response.body.data.accounts.map((a: { number: string; type: string }) => [a.number, a.type]));
      expect(byNumber).toMatchObject({ '1930': 'asset', '2440': 'equity_liability', '3001': 'revenue', '6110': 'expense', '8410': 'financial' });
    });

    it('filters by number range, type and active', async () => {
      const range = await b.send('GET', '/accounts?number_from=2600&number_to=2699');
      expect(range.body.data.accounts.map((a: { number: string }) => a.number)).toEqual(['2611', '2621', '2631', '2641', '2650']);
      const revenue = await b.send('GET', '/accounts?type=revenue');
      expect(revenue.body.data.accounts.every((a: { type: string }) => a.type === 'revenue')).toBe(true);
      expect((await b.send('GET', '/accounts?active=maybe')).status).toBe(400);
    });

    it('creates an account (account.created), class 9 and sub-accounts too; refuses a duplicate number and a non-BAS number', async () => {
      const created = await b.send('POST', '/accounts', { number: '1940', name: 'Sparkonto' });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject({ number: '1940', type: 'asset', active: true, vat_code: null });
      const duplicate = await b.send('POST', '/accounts', { number: '1940', name: 'Again' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.code).toBe('ACCOUNT_EXISTS');
      // Class 9 and sub-accounts of 5-6 digits are accounts (SIE files from real programs use them; docs/sie.md).
      for (const [number, type] of [
        ['9000', 'internal'],
        ['19301', 'asset'],
        ['301101', 'revenue'],
      ]) {
        const made = await b.send('POST', '/accounts', { number, name: `Konto ${number}` });
        expect(made.status, made.text).toBe(201);
        expect(made.body.data).toMatchObject({ number, type });
      }
      for (const number of ['0999', '193', '1930123', 'abcd']) {
        const bad = await b.send('POST', '/accounts', { number, name: 'Bad' });
        expect(bad.status, number).toBe(400);
        expect(bad.body.error.details[0].path).toBe('body.number');
      }
    });

    it('updates name, active and VAT code with real previous_attributes; the number is not a field', async () => {
      const updated = await b.send('PATCH', '/accounts/1940', { name: 'Sparkonto SEB', vat_code: 'exempt' });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ number: '1940', name: 'Sparkonto SEB', vat_code: 'exempt' });
      const event = await t.services.database.prisma.event.findFirstOrThrow({ where: { companyId: tenant.companyId, type: 'account.updated' } });
      expect((event.payload as { data: { previous_attributes: unknown } }).data.previous_attributes).toEqual({ name: 'Sparkonto', vat_code: null });
      expect((await b.send('PATCH', '/accounts/1940', { number: '1941' })).status).toBe(400);
      expect((await b.send('PATCH', '/accounts/1949', { name: 'Nope' })).status).toBe(404);
    });
  });

  describe('fiscal years and periods', () => {
    it('a year has twelve monthly periods by default', async () => {
      const years = await b.send('GET', '/fiscal-years');
      expect(years.body.data.fiscal_years).toMatchObject([{ start_date: '2026-01-01', end_date: '2026-12-31', status: 'open', closed_at: null }]);
      const periods = await b.send('GET', `/periods?fiscal_year_id=${years.body.data.fiscal_years[0].id}`);
      expect(periods.body.data.periods).toHaveLength(12);
      expect(periods.body.data.periods[1]).toMatchObject({ start_date: '2026-02-01', end_date: '2026-02-28', status: 'open' });
    });

    it('refuses overlap, gaps, a start that is not the first of a month and more than 18 months', async () => {
      expect((await b.createYear('2026-06-01')).body.error.code).toBe('FISCAL_YEAR_OVERLAP');
      const gap = await b.createYear('2027-02-01');
      expect(gap.status).toBe(422);
      expect(gap.body.error.code).toBe('FISCAL_YEAR_GAP');
      expect((await b.createYear('2027-01-15')).status).toBe(400);
      expect((await b.createYear('2027-01-01', '2028-07-31')).status).toBe(400);
      const long = await b.createYear('2027-01-01', '2028-06-30');
      expect(long.status, long.text).toBe(201);
      const periods = await b.send('GET', `/periods?fiscal_year_id=${long.body.data.id}`);
      expect(periods.body.data.periods).toHaveLength(18);
    });
  });

  describe('journal entries', () => {
    it('refuses bad lines with 400 naming the line: debit and credit, neither, float, negative, too few lines', async () => {
      const cases: [unknown[], string][] = [
        [
          [
            { account: '6110', debit: 100, credit: 100 },
            { account: '1930', credit: 100 },
          ],
          'body.lines.0.credit',
        ],
        [[{ account: '6110' }, { account: '1930', credit: 100 }], 'body.lines.0.debit'],
        [
          [
            { account: '6110', debit: 100.5 },
            { account: '1930', credit: 100.5 },
          ],
          'body.lines.0.debit',
        ],
        [
          [
            { account: '6110', debit: -100 },
            { account: '1930', credit: 100 },
          ],
          'body.lines.0.debit',
        ],
        [
          [
            { account: '6110', debit: '100' },
            { account: '1930', credit: 100 },
          ],
          'body.lines.0.debit',
        ],
        [[{ account: '6110', debit: 100 }], 'body.lines'],
      ];
      for (const [lines, path] of cases) {
        const response = await b.send('POST', '/journal-entries', { date: '2026-03-01', description: 'Bad', lines });
        expect(response.status, JSON.stringify(lines)).toBe(400);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
      }
    });

    it('refuses an unknown, a foreign or an inactive account, naming the line', async () => {
      const unknown = await b.draft('2026-03-01', [
        { account: '6111', debit: 100 },
        { account: '1930', credit: 100 },
      ]);
      expect(unknown.status).toBe(422);
      expect(unknown.body.error).toMatchObject({ code: 'ACCOUNT_UNKNOWN', details: [{ path: 'body.lines.0.account' }] });
      // 1940 exists only in the other company's chart once it creates it: still unknown here.
      await call(app, 'POST', `/api/v1/companies/${other.companyId}/accounts`, { key: other.key, body: { number: '1950', name: 'Theirs' } });
      const foreign = await b.draft('2026-03-01', [
        { account: '1950', debit: 100 },
        { account: '1930', credit: 100 },
      ]);
      expect(foreign.body.error).toMatchObject({ code: 'ACCOUNT_UNKNOWN', details: [{ path: 'body.lines.0.account' }] });
      await b.send('POST', '/accounts', { number: '5420', name: 'Programvaror', active: false });
      const inactive = await b.draft('2026-03-01', [
        { account: '1930', credit: 100 },
        { account: '5420', debit: 100 },
      ]);
      expect(inactive.status).toBe(422);
      expect(inactive.body.error).toMatchObject({ code: 'ACCOUNT_INACTIVE', details: [{ path: 'body.lines.1.account' }] });
    });

    it('creates a draft (journal_entry.created) and commits it as A1, A2 … with journal_entry.committed', async () => {
      const draft = await b.draft('2026-03-02', OFFICE_SUPPLIES);
      expect(draft.status, draft.text).toBe(201);
      expect(draft.body.data).toMatchObject({ status: 'draft', number: null, voucher: null, total: 50_000, currency: 'SEK' });
      expect(draft.body.data.lines[0]).toEqual({
        line: 1,
        account: '6110',
        account_name: 'Kontorsmateriel',
        debit: 40_000,
        credit: 0,
        description: null,
        objects: [],
      });
      const committed = await b.commit(draft.body.data.id);
      expect(committed.status, committed.text).toBe(200);
      expect(committed.body.data).toMatchObject({ status: 'committed', series: 'A', number: 1, voucher: 'A1' });
      expect(committed.body.data.period_id).toEqual(expect.any(String));
      const second = await b.book('2026-03-03', OFFICE_SUPPLIES);
      expect(second.voucher).toBe('A2');
      const other = await b.book('2026-03-03', OFFICE_SUPPLIES, { series: 'B' });
      expect(other.voucher).toBe('B1');
      const again = await b.commit(draft.body.data.id);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('ENTRY_NOT_DRAFT');
    });

    it('refuses to commit an unbalanced entry, a date outside every fiscal year and a locked period', async () => {
      const unbalanced = await b.draft('2026-03-04', [
        { account: '6110', debit: 100 },
        { account: '1930', credit: 99 },
      ]);
      const refused = await b.commit(unbalanced.body.data.id);
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('ENTRY_UNBALANCED');
      expect(refused.body.error.message).toContain('difference 1');

      const outside = await b.draft('2025-12-31', OFFICE_SUPPLIES);
      expect(outside.status).toBe(201);
      expect((await b.commit(outside.body.data.id)).body.error.code).toBe('NO_FISCAL_YEAR');

      const periods = await b.send('GET', '/periods');
      const april = periods.body.data.periods.find((p: { start_date: string }) => p.start_date === '2026-04-01');
      const locked = await b.send('POST', `/periods/${april.id}/lock`);
      expect(locked.status, locked.text).toBe(200);
      expect(locked.body.data).toMatchObject({ status: 'locked' });
      const inLocked = await b.draft('2026-04-10', OFFICE_SUPPLIES);
      const lockedCommit = await b.commit(inLocked.body.data.id);
      expect(lockedCommit.status).toBe(409);
      expect(lockedCommit.body.error.code).toBe('PERIOD_LOCKED');
      expect((await b.send('POST', `/periods/${april.id}/unlock`)).body.data.status).toBe('open');
      expect((await b.commit(inLocked.body.data.id)).status).toBe(200);
    });

    it('a dry-run commit shows the number and events, writes nothing and leaves no gap', async () => {
      const draft = await b.draft('2026-05-02', OFFICE_SUPPLIES);
      const preview = await b.commit(draft.body.data.id, { dryRun: true });
      expect(preview.status, preview.text).toBe(200);
      expect(preview.body.meta).toMatchObject({ dry_run: true, would_emit: ['journal_entry.committed'] });
      const wouldBe = preview.body.data.number;
      expect((await b.send('GET', `/journal-entries/${draft.body.data.id}`)).body.data.status).toBe('draft');
      const real = await b.commit(draft.body.data.id);
      expect(real.body.data.number).toBe(wouldBe);
    });

    it('replaying a commit with its idempotency key returns the same number', async () => {
      const draft = await b.draft('2026-05-03', OFFICE_SUPPLIES);
      const key = randomUUID();
      const first = await b.commit(draft.body.data.id, { idempotencyKey: key });
      const replay = await b.commit(draft.body.data.id, { idempotencyKey: key });
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.data.voucher).toBe(first.body.data.voucher);
    });

    it('reverses a committed entry once, linked both ways; drafts are deleted, never reversed', async () => {
      const original = await b.book('2026-05-04', OFFICE_SUPPLIES);
      const reversal = await b.send('POST', `/journal-entries/${original.id}/reverse`, { date: '2026-05-05' });
      expect(reversal.status, reversal.text).toBe(201);
      expect(reversal.body.data).toMatchObject({ status: 'committed', reverses_id: original.id, date: '2026-05-05', series: 'A' });
      expect(reversal.body.data.lines.map((l: { debit: number; credit: number }) => [l.debit, l.credit])).toEqual([
        [0, 40_000],
        [0, 10_000],
        [50_000, 0],
      ]);
      const reread = await b.send('GET', `/journal-entries/${original.id}`);
      expect(reread.body.data).toMatchObject({ status: 'reversed', reversed_by_id: reversal.body.data.id });
      const twice = await b.send('POST', `/journal-entries/${original.id}/reverse`);
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe('ENTRY_ALREADY_REVERSED');

      const draft = await b.draft('2026-05-06', OFFICE_SUPPLIES);
      expect((await b.send('POST', `/journal-entries/${draft.body.data.id}/reverse`)).body.error.code).toBe('ENTRY_NOT_COMMITTED');
      expect((await b.send('DELETE', `/journal-entries/${draft.body.data.id}`)).status).toBe(204);
      expect((await b.send('GET', `/journal-entries/${draft.body.data.id}`)).status).toBe(404);
      const deleteCommitted = await b.send('DELETE', `/journal-entries/${original.id}`);
      expect(deleteCommitted.status).toBe(409);
      expect(deleteCommitted.body.error.code).toBe('ENTRY_NOT_DRAFT');
    });

    it('lists newest first with filters and a cursor that neither skips nor repeats', async () => {
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof b.send>> = await b.send('GET', `/journal-entries?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, page.text).toBe(200);
        all.push(...page.body.data.journal_entries.map((e: { id: string }) => e.id));
        cursor = page.body.meta.pagination.next_cursor;
      } while (cursor);
      expect(new Set(all).size).toBe(all.length);
      const count = await t.services.database.prisma.journalEntry.count({ where: { companyId: tenant.companyId } });
      expect(all).toHaveLength(count);

      const series = await b.send('GET', '/journal-entries?series=B');
      expect(series.body.data.journal_entries.map((e: { voucher: string }) => e.voucher)).toEqual(['B1']);
      const drafts = await b.send('GET', '/journal-entries?status=draft');
      expect(drafts.body.data.journal_entries.every((e: { status: string }) => e.status === 'draft')).toBe(true);
      const reversed = await b.send('GET', '/journal-entries?status=reversed');
      expect(reversed.body.data.journal_entries).toHaveLength(1);
      const march = await b.send('GET', '/journal-entries?date_from=2026-03-01&date_to=2026-03-31&account=2641&status=committed');
      expect(march.body.data.journal_entries.map((e: { voucher: string }) => e.voucher).sort()).toEqual(['A1', 'A2', 'B1']);
      expect((await b.send('GET', '/journal-entries?cursor=garbage')).status).toBe(200);
    });

    it('another company sees none of it: 404 on every entry route', async () => {
      const mine = await b.book('2026-06-01', OFFICE_SUPPLIES);
      const theirs = books(app, other.key, tenant.companyId);
      expect((await theirs.send('GET', `/journal-entries/${mine.id}`)).status).toBe(404);
      expect((await theirs.send('GET', '/journal-entries')).status).toBe(404);
      const viaOwn = books(app, other.key, other.companyId);
      expect((await viaOwn.send('GET', `/journal-entries/${mine.id}`)).status).toBe(404);
      expect((await viaOwn.send('POST', `/journal-entries/${mine.id}/reverse`)).status).toBe(404);
      expect((await viaOwn.send('DELETE', `/journal-entries/${mine.id}`)).status).toBe(404);
    });
  });

  describe('the database keeps the books', () => {
    it('refuses UPDATE and DELETE of a committed entry and its lines with 23514', async () => {
      const entry = await b.book('2026-06-02', OFFICE_SUPPLIES);
      const prisma = t.services.database.prisma;
      const statements = [
        `UPDATE journal_entries SET description = 'changed' WHERE id = '${entry.id}'`,
        `DELETE FROM journal_entries WHERE id = '${entry.id}'`,
        `UPDATE journal_lines SET debit = debit + 1 WHERE entry_id = '${entry.id}'`,
        `DELETE FROM journal_lines WHERE entry_id = '${entry.id}'`,
        `INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit)
           SELECT company_id, entry_id, 99, account_id, 1 FROM journal_lines WHERE entry_id = '${entry.id}' LIMIT 1`,
      ];
      for (const statement of statements) {
        const error = await prisma.$executeRawUnsafe(statement).then(
          () => null,
          (e: unknown) => e,
        );
        expect(sqlState(error), statement).toBe('23514');
      }
    });

    it('refuses to commit an unbalanced entry even by raw SQL', async () => {
      const draft = await b.draft('2026-06-03', [
        { account: '6110', debit: 100 },
        { account: '1930', credit: 90 },
      ]);
      const error = await t.services.database.prisma
        .$executeRawUnsafe(
          `UPDATE journal_entries SET status = 'committed', number = 999, fiscal_year_id = (SELECT fiscal_year_id FROM periods LIMIT 1),
             period_id = (SELECT id FROM periods WHERE company_id = company_id LIMIT 1), committed_at = now() WHERE id = '${draft.body.data.id}'`,
        )
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(sqlState(error)).toBe('23514');
    });

    it('refuses unlocking a period of a closed fiscal year', async () => {
      const years = await b.send('GET', '/fiscal-years');
      const year = years.body.data.fiscal_years[1];
      const periods = await b.send('GET', `/periods?fiscal_year_id=${year.id}`);
      const first = periods.body.data.periods[0];
      await b.send('POST', `/periods/${first.id}/lock`);
      await t.services.database.prisma.fiscalYear.update({ where: { id: year.id }, data: { closedAt: NOW } });
      const refused = await b.send('POST', `/periods/${first.id}/unlock`);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('FISCAL_YEAR_CLOSED');
    });
  });

  it('every ledger event reached its subscribed webhook exactly once per event, valid against its schema', async () => {
    const prisma = t.services.database.prisma;
    for (const type of LEDGER_EVENTS) {
      const events = await prisma.event.findMany({ where: { companyId: tenant.companyId, type } });
      expect(events.length, type).toBeGreaterThan(0);
      const deliveries = await prisma.webhookDelivery.findMany({ where: { companyId: tenant.companyId, eventType: type } });
      expect(deliveries.length, type).toBe(events.length);
      expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(events.length);
      for (const delivery of deliveries) {
        const parsed = eventEnvelopeSchemaFor(type).safeParse(delivery.payload);
        expect(parsed.success, `${type}: ${parsed.error?.message}`).toBe(true);
      }
    }
  });
});
