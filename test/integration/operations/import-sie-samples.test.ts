import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIE_SAMPLES_DIR } from '../../helpers/sie-samples.ts';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant } from '../../helpers/factories.ts';
import { books } from '../../helpers/ledger.ts';
import { importSieFile } from '../../helpers/sie-import.ts';
import { buildApp } from '../../../cli/build-app.ts';

/**
 * Every real SIE 4 file in ../shared/sie-samples (written by Fortnox, Visma, Mamut, Norstedts,
 * Specter, Avendo, BL Administration and ES Kassasystem; byte for byte as published) imports as
 * published, and afterwards our account balances are the file's own figures: each #IB 0 is the
 * account's opening balance, each #UB 0 a balance account's closing balance and each #RES 0 a
 * result account's closing balance (the year's result on it), to the öre. The figures and the
 * voucher count are read from the file with the regular expressions below, not with our parser.
 */
const SAMPLES = SIE_SAMPLES_DIR ?? '';
const FILES = SIE_SAMPLES_DIR ? readdirSync(SAMPLES).filter((name) => name.toLowerCase().endsWith('.se')) : [];

/** `-212.5` → -21250 öre, by string arithmetic. */
function ore(amount: string): number {
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return amount.startsWith('-') ? -value : value;
}

interface FileFigures {
  vouchers: number;
  /** Objects on #TRANS rows with a non-zero amount, counted pair by pair ({dim code …}). */
  lineObjects: number;
  /** Distinct (dimension, code) of #OBJEKT records. */
  declaredObjects: number;
  figures: { kind: 'IB' | 'UB' | 'RES'; account: string; amount: number }[];
}

function figuresOf(name: string): FileFigures {
  const lines = iconv.decode(readFileSync(join(SAMPLES, name)), 'cp437').split(/\r?\n/);
  const figures: FileFigures['figures'] = [];
  let lineObjects = 0;
  const declared = new Set<string>();
  for (const line of lines) {
    const row = /^\s*#TRANS\s+"?\d+"?\s+\{([^}]*)\}\s+(-?[\d.]+)/.exec(line);
    if (row && ore(row[2] as string) !== 0) lineObjects += ((row[1] as string).match(/"[^"]*"|[^\s"]+/g) ?? []).length / 2;
    const object = /^\s*#OBJEKT\s+"?(\d+)"?\s+("[^"]*"|\S+)/.exec(line);
    if (object) declared.add(`${object[1]} ${(object[2] as string).replaceAll('"', '')}`);
    const match = /^\s*#(IB|UB|RES)\s+0\s+"?(\d+)"?\s+(-?[\d.]+)/.exec(line);
    if (match) figures.push({ kind: match[1] as 'IB' | 'UB' | 'RES', account: match[2] as string, amount: ore(match[3] as string) });
  }
  return { vouchers: lines.filter((line) => /^\s*#VER[\s]/.test(line)).length, figures, lineObjects, declaredObjects: declared.size };
}

describe.runIf(SIE_SAMPLES_DIR !== null).each(DB_TARGETS)('the sample SIE files from real programs (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => new Date('2027-01-15T10:00:00.000Z') });
    app = buildApp(t.services);
  });
  afterAll(async () => t?.close());

  it.each(FILES)('%s imports as published, with every #IB 0, #UB 0 and #RES 0, the voucher count and the objects on its rows', async (name) => {
    const tenant = await makeTenant(t.services.database.prisma);
    const b = books(app, tenant.key, tenant.companyId);
    const done = await importSieFile(app, t.services, tenant, readFileSync(join(SAMPLES, name)), name);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');

    const { vouchers, figures } = figuresOf(name);
    expect(vouchers).toBeGreaterThan(0);
    expect(done.result.verifications + done.result.skipped_verifications).toBe(vouchers);
    const imported = await t.services.database.prisma.journalEntry.count({
      where: { companyId: tenant.companyId, fiscalYearId: done.result.fiscal_year_id, status: 'committed' },
    });
    expect(imported).toBe(done.result.verifications);

    const report = await b.send('GET', `/reports/account-balances?fiscal_year_id=${done.result.fiscal_year_id}`);
    expect(report.status, report.text).toBe(200);
    const ours = new Map<string, { opening_balance: number; closing_balance: number }>(
      report.body.data.accounts.map((account: { account: string; opening_balance: number; closing_balance: number }) => [account.account, account]),
    );
    const mismatches: string[] = [];
    for (const { kind, account, amount } of figures) {
      const balance = ours.get(account) ?? { opening_balance: 0, closing_balance: 0 };
      const actual = kind === 'IB' ? balance.opening_balance : balance.closing_balance;
      if (actual !== amount) mismatches.push(`#${kind} 0 ${account}: file ${amount}, ours ${actual}`);
    }
    expect(mismatches).toEqual([]);

    // Dimensions: every object declared is the company's, and every row keeps its objects.
    const prisma = t.services.database.prisma;
    const { lineObjects, declaredObjects } = figuresOf(name);
    expect(await prisma.journalLineObject.count({ where: { companyId: tenant.companyId } })).toBe(lineObjects);
    expect(done.result.line_objects).toBe(lineObjects);
    expect(await prisma.dimensionObject.count({ where: { companyId: tenant.companyId } })).toBeGreaterThanOrEqual(declaredObjects);
  });
});
