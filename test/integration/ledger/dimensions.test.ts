import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../cli/build-app.ts';
import { sqlState } from '../../../domain/db/errors.ts';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { books } from '../../helpers/ledger.ts';
import { download } from '../../helpers/reports.ts';
import { decodeSie } from '../../../domain/sie/format.ts';
import { parseSie, readSieRecords } from '../../../domain/sie/parse.ts';

/**
 * Dimensions and objects (issue 27; SIE 4B #DIM, #UNDERDIM, #OBJEKT and the object list of
 * #TRANS) through the real HTTP app and, where the database itself must refuse, by raw SQL.
 */

const NOW = new Date('2026-11-21T10:00:00.000Z');

describe.each(DB_TARGETS)('dimensions and objects (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let other: Tenant;
  let b: ReturnType<typeof books>;
  let o: ReturnType<typeof books>;

  const refused = async (sql: string): Promise<unknown> =>
    t.services.database.prisma.$executeRawUnsafe(sql).then(
      () => null,
      (error: unknown) => error,
    );

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    other = await makeTenant(t.services.database.prisma);
    b = books(app, tenant.key, tenant.companyId);
    o = books(app, other.key, other.companyId);
    expect((await b.createYear('2026-01-01')).status).toBe(201);
  });
  afterAll(async () => t?.close());

  describe('dimensions', () => {
    it("creates SIE's cost centre and project, a sub-dimension and a custom one; lists them in number order with their kinds", async () => {
      for (const body of [
        { number: 6, name: 'Projekt' },
        { number: 1, name: 'Kostnadsställe' },
        { number: 2, name: 'Kostnadsbärare', parent_number: 1 },
        { number: 20, name: 'Region' },
      ]) {
        const created = await b.send('POST', '/dimensions', body);
        expect(created.status, created.text).toBe(201);
      }
      const list = await b.send('GET', '/dimensions');
      expect(list.status).toBe(200);
      expect(list.body.data.dimensions.map((d: { number: number; kind: string; parent_number: number | null }) => [d.number, d.kind, d.parent_number])).toEqual(
        [
          [1, 'cost_centre', null],
          [2, 'cost_bearer', 1],
          [6, 'project', null],
          [20, 'custom', null],
        ],
      );
      // Another company sees none of them.
      expect((await o.send('GET', '/dimensions')).body.data.dimensions).toEqual([]);
      // A cursor list: pages of one give every dimension once, in number order.
      const walked: number[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const response = await b.send('GET', `/dimensions?limit=1${cursor && `&cursor=${cursor}`}`);
        walked.push(...response.body.data.dimensions.map((d: { number: number }) => d.number));
        if (!response.body.meta.pagination.has_more) break;
        cursor = response.body.meta.pagination.next_cursor;
      }
      expect(walked).toEqual([1, 2, 6, 20]);
      const subs = await b.send('GET', '/dimensions?parent_number=1');
      expect(subs.body.data.dimensions.map((d: { number: number }) => d.number)).toEqual([2]);
      for (const query of ['page=2', 'limit=0', 'parent_number=x']) expect((await b.send('GET', `/dimensions?${query}`)).status, query).toBe(400);
    });

    it('refuses a duplicate number, a number SIE keeps for later, an unknown parent and unknown fields', async () => {
      const duplicate = await b.send('POST', '/dimensions', { number: 1, name: 'Again' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.code).toBe('DIMENSION_EXISTS');
      for (const number of [3, 5, 11, 19, 0, 1_000_000]) {
        const bad = await b.send('POST', '/dimensions', { number, name: 'Reserved' });
        expect(bad.status, String(number)).toBe(400);
        expect(bad.body.error.details[0].path).toBe('body.number');
      }
      const orphan = await b.send('POST', '/dimensions', { number: 21, name: 'Orphan', parent_number: 30 });
      expect(orphan.status).toBe(422);
      expect(orphan.body.error.code).toBe('DIMENSION_UNKNOWN');
      expect(orphan.body.error.details[0].path).toBe('body.parent_number');
      expect((await b.send('POST', '/dimensions', { number: 22, name: 'X', colour: 'red' })).status).toBe(400);
    });

    it('renames a dimension; number and parent are not fields; an unknown dimension is 404', async () => {
      const renamed = await b.send('PATCH', '/dimensions/1', { name: 'Resultatenhet' });
      expect(renamed.status, renamed.text).toBe(200);
      expect(renamed.body.data).toMatchObject({ number: 1, name: 'Resultatenhet', kind: 'cost_centre' });
      expect((await b.send('PATCH', '/dimensions/1', { parent_number: 6 })).status).toBe(400);
      expect((await b.send('PATCH', '/dimensions/7', { name: 'Anställd' })).status).toBe(404);
      expect((await b.send('PATCH', '/dimensions/abc', { name: 'X' })).status).toBe(400);
      // Another company's dimension is as unknown as a missing one.
      expect((await o.send('PATCH', '/dimensions/1', { name: 'Mine' })).status).toBe(404);
    });

    it('the database keeps number and parent fixed', async () => {
      const error = await refused(`UPDATE dimensions SET parent_number = 6 WHERE company_id = '${tenant.companyId}' AND number = 20`);
      expect(sqlState(error)).toBe('23514');
    });
  });

  describe('objects', () => {
    it('creates objects with codes kept exactly, lists them in code order, one page at a time', async () => {
      for (const [code, name] of [
        ['Nord', 'Kontor Nord'],
        ['Syd', 'Kontor Syd'],
        ['0001', 'Huvudkontor'],
        ['A/B 1', 'Lager A/B'],
      ] as const) {
        const created = await b.send('POST', '/dimensions/1/objects', { code, name });
        expect(created.status, created.text).toBe(201);
        expect(created.body.data).toMatchObject({ dimension: 1, code, name, active: true });
      }
      expect((await b.send('POST', '/dimensions/6/objects', { code: 'P1', name: 'Företagspresentation' })).status).toBe(201);
      const codes: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof b.send>> = await b.send('GET', `/dimensions/1/objects?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, page.text).toBe(200);
        codes.push(...page.body.data.objects.map((object: { code: string }) => object.code));
        cursor = page.body.meta.pagination.next_cursor;
      } while (cursor);
      // Byte order: digits before capitals.
      expect(codes).toEqual(['0001', 'A/B 1', 'Nord', 'Syd']);
    });

    it('refuses a duplicate code, a code with control characters, and objects of a dimension that does not exist', async () => {
      const duplicate = await b.send('POST', '/dimensions/1/objects', { code: 'Nord', name: 'Again' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.code).toBe('OBJECT_EXISTS');
      expect((await b.send('POST', '/dimensions/1/objects', { code: 'a\tb', name: 'Tab' })).status).toBe(400);
      expect((await b.send('POST', '/dimensions/7/objects', { code: 'E1', name: 'Anna' })).status).toBe(404);
      expect((await b.send('GET', '/dimensions/7/objects')).status).toBe(404);
      expect((await o.send('GET', '/dimensions/1/objects')).status).toBe(404);
    });

    it('renames and deactivates an object addressed by its code (URL-encoded); filters by active', async () => {
      const updated = await b.send('PATCH', `/dimensions/1/objects/${encodeURIComponent('A/B 1')}`, { name: 'Lager', active: false });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ code: 'A/B 1', name: 'Lager', active: false });
      const active = await b.send('GET', '/dimensions/1/objects?active=true');
      expect(active.body.data.objects.map((object: { code: string }) => object.code)).toEqual(['0001', 'Nord', 'Syd']);
      expect((await b.send('PATCH', '/dimensions/1/objects/Nowhere', { name: 'X' })).status).toBe(404);
      expect((await b.send('PATCH', '/dimensions/1/objects/Nord', { code: 'North' })).status).toBe(400);
    });
  });

  describe('objects on journal lines', () => {
    it('a line carries objects; the entry returns them in dimension order, and committing keeps them', async () => {
      const draft = await b.draft('2026-03-10', [
        {
          account: '6110',
          debit: 40_000,
          objects: [
            { dimension: 6, object: 'P1' },
            { dimension: 1, object: 'Nord' },
          ],
        },
        { account: '2641', debit: 10_000 },
        { account: '1930', credit: 50_000, objects: [{ dimension: 1, object: 'Nord' }] },
      ]);
      expect(draft.status, draft.text).toBe(201);
      expect(draft.body.data.lines.map((line: { objects: unknown }) => line.objects)).toEqual([
        [
          { dimension: 1, object: 'Nord' },
          { dimension: 6, object: 'P1' },
        ],
        [],
        [{ dimension: 1, object: 'Nord' }],
      ]);
      const committed = await b.commit(draft.body.data.id);
      expect(committed.status, committed.text).toBe(200);
      expect(committed.body.data.lines[0].objects).toEqual(draft.body.data.lines[0].objects);
    });

    it('refuses two objects of one dimension on a line, unknown dimensions, unknown and inactive objects, naming the line', async () => {
      const twice = await b.draft('2026-03-11', [
        {
          account: '6110',
          debit: 100,
          objects: [
            { dimension: 1, object: 'Nord' },
            { dimension: 1, object: 'Syd' },
          ],
        },
        { account: '1930', credit: 100 },
      ]);
      expect(twice.status).toBe(400);
      expect(twice.body.error.details[0].path).toBe('body.lines.0.objects.1.dimension');
      const cases = [
        { objects: [{ dimension: 9, object: 'L1' }], code: 'DIMENSION_UNKNOWN', path: 'body.lines.1.objects.0.dimension' },
        { objects: [{ dimension: 1, object: 'Väst' }], code: 'OBJECT_UNKNOWN', path: 'body.lines.1.objects.0.object' },
        { objects: [{ dimension: 1, object: 'A/B 1' }], code: 'OBJECT_INACTIVE', path: 'body.lines.1.objects.0.object' },
      ];
      for (const { objects, code, path } of cases) {
        const response = await b.draft('2026-03-11', [
          { account: '6110', debit: 100 },
          { account: '1930', credit: 100, objects },
        ]);
        expect(response.status, code).toBe(422);
        expect(response.body.error.code).toBe(code);
        expect(response.body.error.details[0].path).toBe(path);
      }
    });

    it("refuses another company's object on a line, through the API and in SQL", async () => {
      expect((await o.send('POST', '/dimensions', { number: 1, name: 'Kostnadsställe' })).status).toBe(201);
      expect((await o.send('POST', '/dimensions/1/objects', { code: 'Väst', name: 'Kontor Väst' })).status).toBe(201);
      const response = await b.draft('2026-03-12', [
        { account: '6110', debit: 100, objects: [{ dimension: 1, object: 'Väst' }] },
        { account: '1930', credit: 100 },
      ]);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('OBJECT_UNKNOWN');
      // The composite foreign key refuses it whatever the code does: a line of ours naming their object.
      const draft = await b.draft('2026-03-12', [
        { account: '6110', debit: 100 },
        { account: '1930', credit: 100 },
      ]);
      const error = await refused(
        `INSERT INTO journal_line_objects (company_id, entry_id, line_no, dimension_number, object_code)
         VALUES ('${tenant.companyId}', '${draft.body.data.id}', 1, 1, 'Väst')`,
      );
      expect(sqlState(error)).toBe('23503');
      // And their company cannot hang its object on our line.
      const crossed = await refused(
        `INSERT INTO journal_line_objects (company_id, entry_id, line_no, dimension_number, object_code)
         VALUES ('${other.companyId}', '${draft.body.data.id}', 1, 1, 'Väst')`,
      );
      expect(sqlState(crossed)).toBe('23503');
    });

    it("a committed entry's objects never change, even by raw SQL; a draft's go with it", async () => {
      const entry = await b.book('2026-03-13', [
        { account: '6110', debit: 200, objects: [{ dimension: 1, object: 'Syd' }] },
        { account: '1930', credit: 200 },
      ]);
      const where = `company_id = '${tenant.companyId}' AND entry_id = '${entry.id}'`;
      for (const statement of [
        `UPDATE journal_line_objects SET object_code = 'Nord' WHERE ${where}`,
        `DELETE FROM journal_line_objects WHERE ${where}`,
        `INSERT INTO journal_line_objects (company_id, entry_id, line_no, dimension_number, object_code) VALUES ('${tenant.companyId}', '${entry.id}', 2, 1, 'Nord')`,
      ]) {
        expect(sqlState(await refused(statement)), statement).toBe('23514');
      }
      // Objects in use keep their code.
      expect(sqlState(await refused(`UPDATE dimension_objects SET code = 'South' WHERE company_id = '${tenant.companyId}' AND code = 'Syd'`))).toBe('23514');
      const draft = await b.draft('2026-03-13', [
        { account: '6110', debit: 300, objects: [{ dimension: 1, object: 'Syd' }] },
        { account: '1930', credit: 300 },
      ]);
      expect((await b.send('DELETE', `/journal-entries/${draft.body.data.id}`)).status).toBe(204);
      const left = await t.services.database.prisma.journalLineObject.count({ where: { companyId: tenant.companyId, entryId: draft.body.data.id } });
      expect(left).toBe(0);
    });

    it('a reversal carries the objects of the entry it reverses', async () => {
      const entry = await b.book('2026-03-14', [
        { account: '6110', debit: 500, objects: [{ dimension: 6, object: 'P1' }] },
        { account: '1930', credit: 500, objects: [{ dimension: 1, object: 'Nord' }] },
      ]);
      const reversal = await b.send('POST', `/journal-entries/${entry.id}/reverse`, { date: '2026-03-15' });
      expect(reversal.status, reversal.text).toBe(201);
      expect(
        reversal.body.data.lines.map((line: { account: string; debit: number; credit: number; objects: unknown }) => [
          line.account,
          line.debit,
          line.credit,
          line.objects,
        ]),
      ).toEqual([
        ['6110', 0, 500, [{ dimension: 6, object: 'P1' }]],
        ['1930', 500, 0, [{ dimension: 1, object: 'Nord' }]],
      ]);
    });
  });
  describe('reports for one object', () => {
    // The committed lines so far (drafts never count), worked out by hand from the entries above:
    //   03-10  6110 D 40 000 {1 Nord, 6 P1}   2641 D 10 000   1930 C 50 000 {1 Nord}
    //   03-13  6110 D 200 {1 Syd}             1930 C 200
    //   03-14  6110 D 500 {6 P1}              1930 C 500 {1 Nord}
    //   03-15  the reversal of 03-14: 6110 C 500 {6 P1}, 1930 D 500 {1 Nord}
    const YEAR = 'from=2026-01-01&to=2026-12-31';
    const rows = (accounts: { account: string; period_debit: number; period_credit: number; closing_balance: number }[]) =>
      accounts.map((row) => [row.account, row.period_debit, row.period_credit, row.closing_balance]);

    it('the trial balance of cost centre Nord and of project P1 sums only the lines carrying them', async () => {
      const nord = await b.send('GET', `/reports/trial-balance?${YEAR}&dimension=1&object=Nord`);
      expect(nord.status, nord.text).toBe(200);
      expect(rows(nord.body.data.accounts)).toEqual([
        ['1930', 500, 50_500, -50_000],
        ['6110', 40_000, 0, 40_000],
      ]);
      // One side of an entry can carry an object the other does not: such a slice need not balance.
      expect(nord.body.data.balanced).toBe(false);
      const project = await b.send('GET', `/reports/account-balances?${YEAR}&dimension=6&object=P1`);
      expect(rows(project.body.data.accounts)).toEqual([['6110', 40_500, 500, 40_000]]);
      const income = await b.send('GET', `/reports/income-statement?${YEAR}&dimension=6&object=P1`);
      expect(income.status, income.text).toBe(200);
      expect(JSON.stringify(income.body.data)).toContain('-40000');
      const whole = await b.send('GET', `/reports/trial-balance?${YEAR}`);
      expect(rows(whole.body.data.accounts).find((row) => row[0] === '6110')).toEqual(['6110', 40_700, 500, 40_200]);
    });

    it('the general ledger of cost centre Syd lists its one line with its running balance', async () => {
      const ledger = await b.send('GET', `/reports/general-ledger?${YEAR}&dimension=1&object=Syd`);
      expect(ledger.status, ledger.text).toBe(200);
      expect(
        ledger.body.data.lines.map((line: { account: string; date: string; debit: number; balance: number }) => [
          line.account,
          line.date,
          line.debit,
          line.balance,
        ]),
      ).toEqual([['6110', '2026-03-13', 200, 200]]);
    });

    it("refuses half a filter, an unknown dimension, an unknown object and another company's object", async () => {
      const half = await b.send('GET', `/reports/trial-balance?${YEAR}&dimension=1`);
      expect(half.status).toBe(400);
      expect(half.body.error.details[0].path).toBe('query.object');
      const dimension = await b.send('GET', `/reports/general-ledger?${YEAR}&dimension=9&object=L1`);
      expect(dimension.status).toBe(422);
      expect(dimension.body.error.code).toBe('DIMENSION_UNKNOWN');
      for (const object of ['Nowhere', 'Väst']) {
        const response = await b.send('GET', `/reports/income-statement?${YEAR}&dimension=1&object=${encodeURIComponent(object)}`);
        expect(response.status, object).toBe(422);
        expect(response.body.error.code).toBe('OBJECT_UNKNOWN');
        expect(response.body.error.details[0].path).toBe('query.object');
      }
    });
  });
  describe('the SIE export', () => {
    it('writes #DIM, #UNDERDIM, #OBJEKT and the object lists of #TRANS, and our parser reads them back', async () => {
      const year = (await b.send('GET', '/fiscal-years')).body.data.fiscal_years.find((y: { start_date: string }) => y.start_date === '2026-01-01');
      const file = await download(app, `/api/v1/companies/${tenant.companyId}/fiscal-years/${year.id}/sie`, { key: tenant.key });
      expect(file.status).toBe(200);
      const text = decodeSie(file.bytes);
      const issues: { line: number; message: string }[] = [];
      const records = [...readSieRecords(text, issues)];
      expect(issues).toEqual([]);
      const fieldsOf = (label: string) => records.filter((record) => record.label === label).map((record) => record.fields);
      // Super-dimensions first, then the sub-dimension naming its super-dimension (SIE 4B #UNDERDIM).
      expect(fieldsOf('DIM')).toEqual([
        ['6', 'Projekt'],
        ['1', 'Resultatenhet'],
        ['20', 'Region'],
      ]);
      expect(fieldsOf('UNDERDIM')).toEqual([['2', 'Kostnadsbärare', '1']]);
      expect(fieldsOf('OBJEKT')).toEqual([
        ['1', '0001', 'Huvudkontor'],
        ['1', 'A/B 1', 'Lager'],
        ['1', 'Nord', 'Kontor Nord'],
        ['1', 'Syd', 'Kontor Syd'],
        ['6', 'P1', 'Företagspresentation'],
      ]);
      const { document, issues: parseIssues } = parseSie(text);
      expect(parseIssues).toEqual([]);
      const byDate = (date: string) =>
        document.verifications.filter((v) => v.date === date).flatMap((v) => v.transactions.map((row) => [row.account, row.amount, row.objects]));
      expect(byDate('2026-03-10')).toEqual([
        ['6110', 40_000, ['1', 'Nord', '6', 'P1']],
        ['2641', 10_000, []],
        ['1930', -50_000, ['1', 'Nord']],
      ]);
      expect(byDate('2026-03-15')).toEqual([
        ['6110', -500, ['6', 'P1']],
        ['1930', 500, ['1', 'Nord']],
      ]);
      expect(text).toContain('#TRANS 6110 {1 "Nord" 6 "P1"} 400.00');
    });
  });
});
