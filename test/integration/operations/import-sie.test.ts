import { sieImportRunnerWith } from '../../helpers/sie-import.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { books, type LineInput } from '../../helpers/ledger.ts';
import { download } from '../../helpers/reports.ts';
import { blobOf, PDF, send } from '../../helpers/documents.ts';
import { generatedAmount, generatedSie } from '../../helpers/sie.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { createOperationRunner, LeaseLost } from '../../../domain/operations/runner.ts';
import { OPERATION_KIND_RUNNERS } from '../../../domain/operations/kinds.ts';
import { SIE_IMPORT_BATCH } from '../../../domain/sie/import.ts';
import { decodeSie, encodeSie } from '../../../domain/sie/format.ts';
import { parseSie } from '../../../domain/sie/parse.ts';

const NOW = new Date('2027-01-15T10:00:00.000Z');

/** Two long entries: 300 lines each, so whole batches of lines go through the set-wise insert. */
function longEntry(seed: number): LineInput[] {
  const lines: LineInput[] = [];
  for (let line = 0; line < 150; line += 1) {
    const amount = 1_000 + ((seed * 17 + line * 29) % 5_000);
    lines.push({ account: '4010', debit: amount, description: `Vara ${line} "märkt" \\ åäö` });
    lines.push({ account: '2440', credit: amount });
  }
  return lines;
}

describe.each(DB_TARGETS)('importSie (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let a: Tenant;
  let source: ReturnType<typeof books>;
  let year2026: { id: string };
  let exported: Buffer;
  const runner = () => createOperationRunner(t.services, { kinds: OPERATION_KIND_RUNNERS });

  const upload = (tenant: Tenant, bytes: Buffer, query = '', filename = 'bokforing.se') => {
    const form = new FormData();
    form.append('file', blobOf(bytes, 'text/plain'), filename);
    return send(app, tenant.key, `/api/v1/companies/${tenant.companyId}/sie-imports${query}`, form);
  };
  const operation = async (tenant: Tenant, id: string) => (await books(app, tenant.key, tenant.companyId).send('GET', `/operations/${id}`)).body.data;
  const counts = async (companyId: string) => {
    const prisma = t.services.database.prisma;
    return {
      entries: await prisma.journalEntry.count({ where: { companyId } }),
      accounts: await prisma.account.count({ where: { companyId } }),
      years: await prisma.fiscalYear.count({ where: { companyId } }),
      counters: await prisma.journalSeriesCounter.count({ where: { companyId } }),
    };
  };

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    a = await makeTenant(t.services.database.prisma);
    source = books(app, a.key, a.companyId);
    await source.createYear('2025-01-01');
    await source.createYear('2026-01-01');
    expect((await source.send('POST', '/accounts', { number: '3010', name: 'Försäljning "Éclair" \\ Öland' })).status).toBe(201);
    // 2025 is never closed: its result (a sale) stays in classes 3-8, so the 2026 #IB does not balance by itself.
    await source.book(
      '2025-02-01',
      [
        { account: '1930', debit: 2_500_000 },
        { account: '2081', credit: 2_500_000 },
      ],
      { description: 'Aktiekapital' },
    );
    await source.book('2025-05-05', [
      { account: '1510', debit: 62_500 },
      { account: '3010', credit: 50_000 },
      { account: '2611', credit: 12_500 },
    ]);
    await source.book(
      '2026-01-15',
      [
        { account: '1930', debit: 62_500, description: 'Betalning "Åhléns"' },
        { account: '1510', credit: 62_500 },
      ],
      {
        description: 'Inbetalning Åhléns',
      },
    );
    const sale = await source.book('2026-02-03', [
      { account: '1510', debit: 125_000 },
      { account: '3010', credit: 100_000 },
      { account: '2611', credit: 25_000 },
    ]);
    expect((await source.send('POST', `/journal-entries/${sale.id}/reverse`, { date: '2026-02-04' })).status).toBe(201);
    await source.book(
      '2026-03-01',
      [
        { account: '6110', debit: 40_000 },
        { account: '2641', debit: 10_000 },
        { account: '1930', credit: 50_000 },
      ],
      { series: 'B' },
    );
    for (let seed = 0; seed < 2; seed += 1) await source.book('2026-04-10', longEntry(seed), { description: `Inköp ${seed}` });
    await source.book(
      '2026-06-30',
      [
        { account: '8310', credit: 1_234 },
        { account: '1930', debit: 1_234 },
      ],
      { series: 'B' },
    );
    await source.draft('2026-04-11', [
      { account: '6110', debit: 1 },
      { account: '1930', credit: 1 },
    ]);
    year2026 = (await source.send('GET', '/fiscal-years')).body.data.fiscal_years[1];
    const file = await download(app, `/api/v1/companies/${a.companyId}/fiscal-years/${year2026.id}/sie`, { key: a.key });
    expect(file.status).toBe(200);
    exported = Buffer.from(file.bytes);
  });
  afterAll(async () => t?.close());

  it('imports the file exportSie wrote for another company: the same balances, account by account, and the same vouchers', async () => {
    const b = await makeTenant(t.services.database.prisma);
    const started = await upload(b, exported);
    expect(started.status, started.text).toBe(202);
    expect(started.body.data).toMatchObject({ kind: 'sie_import', status: 'queued', company_id: b.companyId });
    expect(await runner().runOnce()).toBe(true);
    const done = await operation(b, started.body.data.id);
    expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'succeeded', progress: 100, attempts: 1, error: null });
    expect(done.result).toMatchObject({
      fiscal_year: { start_date: '2026-01-01', end_date: '2026-12-31', created: true },
      verifications: 7,
      series: { A: 5, B: 2 },
      // The rest of the file's chart is the starter chart every company has.
      accounts_created: ['3010'],
      opening_balance: { date: '2025-12-31', series: 'IB', fiscal_year_created: true },
    });

    const target = books(app, b.key, b.companyId);
    const chart = async (client: ReturnType<typeof books>) =>
      (await client.send('GET', '/accounts')).body.data.accounts.map((account: { number: string; name: string }) => [account.number, account.name]);
    expect(await chart(target)).toEqual(await chart(source));
    const reports = async (client: ReturnType<typeof books>, yearId: string) => ({
      balances: (await client.send('GET', `/reports/account-balances?fiscal_year_id=${yearId}`)).body.data,
      trial: (await client.send('GET', `/reports/trial-balance?fiscal_year_id=${yearId}`)).body.data,
      sheet: (await client.send('GET', `/reports/balance-sheet?fiscal_year_id=${yearId}`)).body.data,
      income: (await client.send('GET', `/reports/income-statement?fiscal_year_id=${yearId}`)).body.data,
    });
    const before = await reports(source, year2026.id);
    const after = await reports(target, done.result.fiscal_year_id);
    expect(after.balances.accounts.length).toBeGreaterThan(8);
    // Opening, period debit and credit, closing: every account, exactly (öre integers).
    expect(after.balances.accounts).toEqual(before.balances.accounts);
    expect(after.trial.accounts).toEqual(before.trial.accounts);
    expect(after.trial.totals).toEqual(before.trial.totals);
    expect(after.sheet).toEqual({ ...before.sheet, period: after.sheet.period });
    expect(after.income).toEqual({ ...before.income, period: after.income.period });

    // Exported again, the year's balances and verifications are the file's (registered the same day).
    const again = await download(app, `/api/v1/companies/${b.companyId}/fiscal-years/${done.result.fiscal_year_id}/sie`, { key: b.key });
    const first = parseSie(decodeSie(exported)).document;
    const second = parseSie(decodeSie(again.bytes)).document;
    const strip = (verification: (typeof first.verifications)[number]) => ({
      ...verification,
      line: 0,
      transactions: verification.transactions.map((transaction) => ({ ...transaction, line: 0 })),
    });
    expect(second.verifications.map(strip)).toEqual(first.verifications.map(strip));
    const yearZero = (document: typeof first) =>
      document.balances.filter((balance) => balance.yearIndex === 0).map(({ kind, account, amount }) => ({ kind, account, amount }));
    expect(yearZero(second)).toEqual(yearZero(first));

    // One journal_entry.committed per imported verification (and the opening entry).
    const events = await t.services.database.prisma.event.count({ where: { companyId: b.companyId, type: 'journal_entry.committed' } });
    expect(events).toBe(7 + 1);
  });

  it('refuses the same file again: its series are in use, and nothing more is booked', async () => {
    const b = await makeTenant(t.services.database.prisma);
    expect((await upload(b, exported)).status).toBe(202);
    expect(await runner().runOnce()).toBe(true);
    const before = await counts(b.companyId);
    const again = await upload(b, exported);
    expect(await runner().runOnce()).toBe(true);
    const failed = await operation(b, again.body.data.id);
    const firstVer =
      decodeSie(exported)
        .split('\r\n')
        .findIndex((line) => line.startsWith('#VER A ')) + 1;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'SIE_INVALID' } });
    expect(failed.error.message).toMatch(new RegExp(`^Line ${firstVer}: Series A of the fiscal year 2026-01-01 – 2026-12-31 is already in use`));
    expect(await counts(b.companyId)).toEqual(before);
  });

  it('fails an unbalanced #VER with its line number and imports nothing', async () => {
    const lines = decodeSie(exported).split('\r\n');
    const verLine = lines.findIndex((line) => line.startsWith('#VER B 1 '));
    expect(verLine).toBeGreaterThan(0);
    // The verification's first #TRANS loses one öre.
    const transIndex = verLine + 2;
    lines[transIndex] = (lines[transIndex] as string).replace(
      / (-?\d+)\.(\d{2})/,
      (_m, kronor: string, ore: string) => ` ${kronor}.${String(Number(ore) + 1).padStart(2, '0')}`,
    );
    const broken = Buffer.from(encodeSie(lines.join('\r\n')));

    const b = await makeTenant(t.services.database.prisma);
    const before = await counts(b.companyId);
    const started = await upload(b, broken);
    expect(started.status, started.text).toBe(202);
    expect(await runner().runOnce()).toBe(true);
    const failed = await operation(b, started.body.data.id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'SIE_INVALID' } });
    expect(failed.error.message).toMatch(new RegExp(`^Line ${verLine + 1}: #VER B 1 does not balance`));
    expect(await counts(b.companyId)).toEqual(before);
    expect(before).toMatchObject({ entries: 0, years: 0, counters: 0 });

    // A dry run says the same at once, with a 422.
    const dry = await upload(b, broken, '?dry_run=true');
    expect(dry.status).toBe(422);
    expect(dry.body.error).toMatchObject({ code: 'SIE_INVALID', details: [{ path: `line ${verLine + 1}` }] });
  });

  it('refuses amounts with more than two decimals, and dates outside #RAR 0, by line', async () => {
    const b = await makeTenant(t.services.database.prisma);
    const lines = decodeSie(generatedSie(3)).split('\r\n');
    const trans = lines.findIndex((line) => line.includes('#TRANS 1930'));
    const ver = lines.findIndex((line) => line.startsWith('#VER A 2 '));
    const cases: [number, string, RegExp][] = [
      [trans, (lines[trans] as string).replace(/(\.\d\d)$/, '$10'), /at most two decimals/],
      [ver, (lines[ver] as string).replace(/ \d{8} /, ' 20270105 '), /outside the fiscal year #RAR 0/],
    ];
    for (const [index, replacement, pattern] of cases) {
      const content = lines.map((line, i) => (i === index ? replacement : line)).join('\r\n');
      const started = await upload(b, Buffer.from(encodeSie(content)));
      expect(await runner().runOnce()).toBe(true);
      const failed = await operation(b, started.body.data.id);
      expect(failed.error.message).toMatch(new RegExp(`^Line ${index + 1}: `));
      expect(failed.error.message).toMatch(pattern);
    }
    expect(await counts(b.companyId)).toMatchObject({ entries: 0, years: 0 });
  });

  it("checks the content, not the client's word: a PDF named .se is refused at once", async () => {
    const b = await makeTenant(t.services.database.prisma);
    const refused = await upload(b, PDF, '', 'bokforing.se');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('SIE_INVALID');
    expect(refused.body.error.message).toMatch(/^Line 1: This is not an SIE file/);
    expect((await books(app, b.key, b.companyId).send('GET', '/operations')).body.data.operations).toEqual([]);
  });

  it('a dry run reads the whole file and shows the plan, writing nothing', async () => {
    const b = await makeTenant(t.services.database.prisma);
    const before = await counts(b.companyId);
    const dry = await upload(b, exported, '?dry_run=true');
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.meta.dry_run).toBe(true);
    expect(dry.body.data.result).toMatchObject({ verifications: 7, fiscal_year: { created: true }, opening_balance: { lines: expect.any(Number) } });
    expect(await counts(b.companyId)).toEqual(before);
    expect(await t.services.database.prisma.operation.count({ where: { companyId: b.companyId } })).toBe(0);
  });

  it('a setup cut short between its transactions is removed and run again whole', async () => {
    const b = await makeTenant(t.services.database.prisma);
    const count = 7;
    const started = await upload(b, generatedSie(count));
    expect(started.status).toBe(202);
    // The first runner "dies" inside the setup's last transaction (the one with the first
    // checkpoint): its first three committed — years, the pending row, accounts — and no checkpoint says so.
    const dying = sieImportRunnerWith(t.services, (job) => async () => {
      throw new LeaseLost(job.operationId);
    });
    expect(await dying.runOnce()).toBe(true);
    const prisma = t.services.database.prisma;
    const cut = await prisma.operation.findUniqueOrThrow({ where: { id: started.body.data.id } });
    expect(cut).toMatchObject({ status: 'running', checkpoint: null });
    expect(await prisma.pendingImport.count({ where: { companyId: b.companyId } })).toBe(1);
    const halfWritten = await counts(b.companyId);
    expect(halfWritten.years).toBeGreaterThan(0);

    await prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, cut.id);
    expect(await runner().runOnce()).toBe(true);
    expect(await operation(b, cut.id)).toMatchObject({ status: 'succeeded', attempts: 2, result: { verifications: count } });
    // What a setup run once writes: the half-written one was removed, not added to.
    expect(await counts(b.companyId)).toEqual({ ...halfWritten, entries: count, counters: 1 });
    expect(await prisma.pendingImport.count({ where: { companyId: b.companyId } })).toBe(0);
  });

  it('resumes after a crash between batches: every verification exactly once, numbers gapless', async () => {
    const b = await makeTenant(t.services.database.prisma);
    const batch = SIE_IMPORT_BATCH[target];
    const count = batch * 2 + 37;
    const started = await upload(b, generatedSie(count));
    expect(started.status).toBe(202);
    // The first runner "dies" inside its third transaction (the second batch), after writing the
    // batch and its checkpoint but before the commit: as a SIGKILL would, it leaves the row running.
    let checkpoints = 0;
    const dying = sieImportRunnerWith(t.services, (job) => async (tx, progress, message, checkpoint) => {
      await job.checkpointIn(tx, progress, message, checkpoint);
      if (++checkpoints === 3) throw new LeaseLost(job.operationId);
    });
    expect(await dying.runOnce()).toBe(true);
    const prisma = t.services.database.prisma;
    const halfway = await prisma.operation.findUniqueOrThrow({ where: { id: started.body.data.id } });
    expect(halfway).toMatchObject({ status: 'running', checkpoint: { next: batch } });
    expect(await prisma.journalEntry.count({ where: { companyId: b.companyId } })).toBe(batch);

    await prisma.$executeRawUnsafe(`UPDATE operations SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, halfway.id);
    expect(await runner().runOnce()).toBe(true);
    expect(await operation(b, halfway.id)).toMatchObject({ status: 'succeeded', attempts: 2, result: { verifications: count } });
    const [numbers] = await prisma.$queryRawUnsafe<{ n: bigint; distinct_numbers: bigint; low: number; high: number; texts: bigint; total: bigint }[]>(
      `SELECT count(*)::bigint AS n, count(DISTINCT e.number)::bigint AS distinct_numbers, min(e.number) AS low, max(e.number) AS high,
              count(DISTINCT e.description)::bigint AS texts,
              (SELECT sum(l.debit)::bigint FROM journal_lines l WHERE l.company_id = $1::uuid) AS total
         FROM journal_entries e WHERE e.company_id = $1::uuid AND e.series = 'A' AND e.status = 'committed'`,
      b.companyId,
    );
    let expected = 0n;
    for (let index = 1; index <= count; index += 1) expected += BigInt(generatedAmount(index));
    expect(numbers).toEqual({ n: BigInt(count), distinct_numbers: BigInt(count), low: 1, high: count, texts: BigInt(count), total: expected });
  });
});
