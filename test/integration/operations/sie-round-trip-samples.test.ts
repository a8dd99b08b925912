import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIE_SAMPLES_DIR } from '../../helpers/sie-samples.ts';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant } from '../../helpers/factories.ts';
import { download } from '../../helpers/reports.ts';
import { importSieFile } from '../../helpers/sie-import.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { decodeSieFile } from '../../../domain/sie/import.ts';
import { parseSie, type SieDocument } from '../../../domain/sie/parse.ts';

/**
 * SIE → us → SIE, for every real file in ../shared/sie-samples, on both engines: the file is
 * imported, its year exported, and both files are read with our parser. The export must give the
 * source's years 0 and -1 (dates, and every account's opening and closing balance to the öre),
 * the same vouchers (count, dates, and each one's rows: account, amount, objects) and the same
 * objects. A source without #RAR -1 has no previous year to compare, and one without balances
 * (a till's voucher file) no balances.
 */
const SAMPLES = SIE_SAMPLES_DIR ?? '';
const FILES = SIE_SAMPLES_DIR ? readdirSync(SAMPLES).filter((name) => name.toLowerCase().endsWith('.se')) : [];

const read = (bytes: Buffer): SieDocument => {
  const { document, issues } = parseSie(decodeSieFile(bytes));
  expect(issues).toEqual([]);
  return document;
};

/** Year `index`: its dates, and per account the opening (#IB) and closing (#UB, or #RES for a result account) balance, zeros left out. */
function yearOf(document: SieDocument, index: number) {
  const rar = document.fiscalYears.find((year) => year.yearIndex === index);
  const opening = new Map<string, number>();
  const closing = new Map<string, number>();
  for (const balance of document.balances) {
    if (balance.yearIndex !== index) continue;
    const map = balance.kind === 'IB' ? opening : closing;
    map.set(balance.account, (map.get(balance.account) ?? 0) + balance.amount);
  }
  const nonZero = (map: Map<string, number>) => Object.fromEntries([...map].filter(([, amount]) => amount !== 0).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { dates: rar ? { start: rar.start, end: rar.end } : null, opening: nonZero(opening), closing: nonZero(closing) };
}

/** Each voucher with a non-zero row as one comparable line: date, then its non-zero rows (account, amount, objects) in order. */
function vouchersOf(document: SieDocument): string[] {
  return document.verifications
    .map((verification) => {
      const rows = verification.transactions
        .filter((row) => row.amount !== 0)
        .map((row) => {
          const pairs: string[] = [];
          for (let index = 0; index + 1 < row.objects.length; index += 2) pairs.push(`${row.objects[index]}:${row.objects[index + 1]}`);
          return `${row.account} ${row.amount} {${pairs.sort().join(' ')}}`;
        });
      return rows.length === 0 ? null : `${verification.date} | ${rows.join(' | ')}`;
    })
    .filter((voucher): voucher is string => voucher !== null)
    .sort();
}

const objectsOf = (document: SieDocument): string[] => [...new Set(document.objects.map((object) => `${object.dimension}:${object.code}`))].sort();

describe.runIf(SIE_SAMPLES_DIR !== null).each(DB_TARGETS)('SIE → us → SIE with the sample files (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => new Date('2027-01-15T10:00:00.000Z') });
    app = buildApp(t.services);
  });
  afterAll(async () => t?.close());

  it.each(FILES)('%s: the export gives the same years 0 and -1, vouchers and objects', async (name) => {
    const bytes = readFileSync(join(SAMPLES, name));
    const tenant = await makeTenant(t.services.database.prisma);
    const done = await importSieFile(app, t.services, tenant, bytes, name);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const exported = await download(app, `/api/v1/companies/${tenant.companyId}/fiscal-years/${done.result.fiscal_year_id}/sie`, { key: tenant.key });
    expect(exported.status).toBe(200);

    const source = read(bytes);
    const ours = read(Buffer.from(exported.bytes));
    const sourceYear = yearOf(source, 0);
    const ourYear = yearOf(ours, 0);
    if (sourceYear.dates) expect(ourYear.dates).toEqual(sourceYear.dates);
    // A voucher file (ES Kassasystem's) states no balances; then there are none to compare.
    if (source.balances.some((balance) => balance.yearIndex === 0)) {
      expect(ourYear.opening).toEqual(sourceYear.opening);
      expect(ourYear.closing).toEqual(sourceYear.closing);
    }
    if (source.fiscalYears.some((year) => year.yearIndex === -1)) expect(yearOf(ours, -1)).toEqual(yearOf(source, -1));

    const sourceVouchers = vouchersOf(source);
    expect(sourceVouchers.length).toBeGreaterThan(0);
    expect(vouchersOf(ours)).toEqual(sourceVouchers);
    // Every object the source declares comes back (the export also declares the ones its rows use undeclared).
    expect(objectsOf(ours)).toEqual(expect.arrayContaining(objectsOf(source)));
  });
});
