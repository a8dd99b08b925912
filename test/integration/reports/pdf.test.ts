import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { EXPECTED_WRAPPED_HEADERS, expectHeaders } from '../../helpers/headers.ts';
import { books, type LineInput } from '../../helpers/ledger.ts';
import { download } from '../../helpers/reports.ts';
import { buildApp } from '../../../cli/build-app.ts';

/**
 * The report PDFs opened by Debian's poppler-utils (installed by .ci/run): pdftoppm must render
 * the first page, and pdftotext must find the company, the period and the totals on it.
 */
const HAS_POPPLER = ['/usr/bin/pdftoppm', '/usr/bin/pdftotext'].every((tool) => existsSync(tool));
if (!HAS_POPPLER) console.warn('pdftoppm/pdftotext are absent (apt-get install poppler-utils): the report PDF test is skipped');

const NOW = new Date('2026-11-21T10:00:00.000Z');
const COMPANY_NAME = 'Sjöbodens Fiskrökeri Åre AB';
const RANGE = 'from=2026-03-01&to=2026-03-31';

/** Kronor as the PDFs print them, written out here rather than imported from the renderer. */
const kronor = (ore: number): string => {
  const sign = ore < 0 ? '-' : '';
  const absolute = Math.abs(ore);
  const whole = Math.floor(absolute / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${sign}${whole},${String(absolute % 100).padStart(2, '0')}`;
};

describe.skipIf(!HAS_POPPLER).each(DB_TARGETS)('report PDFs (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  let tenant: Tenant;
  let b: ReturnType<typeof books>;
  const dir = mkdtempSync(join(tmpdir(), 'report-pdf-'));

  beforeAll(async () => {
    t = await createTestServices(target, { now: () => NOW });
    app = buildApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    await t.services.database.prisma.company.update({ where: { id: tenant.companyId }, data: { name: COMPANY_NAME, orgNumber: '556677-8899' } });
    b = books(app, tenant.key, tenant.companyId);
    await b.createYear('2026-01-01');
    await b.book('2026-03-01', [
      { account: '1930', debit: 10_000_000 },
      { account: '2081', credit: 10_000_000 },
    ]);
    await b.book('2026-03-04', [
      { account: '1510', debit: 1_234_567 },
      { account: '3001', credit: 987_654 },
      { account: '2611', credit: 246_913 },
    ]);
    await b.book('2026-03-09', [
      { account: '6110', debit: 40_000 },
      { account: '2641', debit: 10_000 },
      { account: '1930', credit: 50_000 },
    ]);
    // Enough bank lines for the general ledger to run over several pages.
    const small: LineInput[] = [];
    for (let line = 0; line < 60; line += 1) small.push({ account: '6570', debit: 1_250 + line }, { account: '1930', credit: 1_250 + line });
    await b.book('2026-03-31', small, { description: 'Bankavgifter mars' });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  /** Downloads the PDF, checks the response, renders page 1 with pdftoppm; returns the text of the given page. */
  async function openPdf(report: string, query = RANGE, page = 1): Promise<string> {
    const response = await download(app, `/api/v1/companies/${tenant.companyId}/reports/${report}?${query}`, { key: tenant.key, accept: 'application/pdf' });
    expect(response.status, response.text.slice(0, 300)).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${report}-2026-03-01-2026-03-31\\.pdf"`));
    expectHeaders(response.headers, EXPECTED_WRAPPED_HEADERS);
    expect(new TextDecoder().decode(response.bytes.slice(0, 5))).toBe('%PDF-');
    const file = join(dir, `${report}-${target}.pdf`);
    writeFileSync(file, response.bytes);
    const prefix = join(dir, `${report}-${target}`);
    execFileSync('pdftoppm', ['-r', '40', '-png', '-f', '1', '-l', '1', file, prefix]);
    expect(readdirSync(dir).some((name) => name.startsWith(`${report}-${target}`) && name.endsWith('.png'))).toBe(true);
    return execFileSync('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' });
  }

  function expectHeading(text: string, title: string, page = 1): void {
    expect(text).toContain(title);
    expect(text).toContain(COMPANY_NAME);
    expect(text).toContain('Org.nr 556677-8899');
    expect(text).toContain('Period 2026-03-01 – 2026-03-31');
    expect(text).toContain('Generated 2026-11-21 10:00 UTC');
    expect(text).toContain(`Page ${page}`);
  }

  it('account balances and trial balance: the totals of the JSON report', async () => {
    for (const [report, title] of [
      ['account-balances', 'Account balances'],
      ['trial-balance', 'Trial balance (Råbalans)'],
    ] as const) {
      const json = (await b.send('GET', `/reports/${report}?${RANGE}`)).body.data;
      const text = await openPdf(report);
      expectHeading(text, title);
      const totals = text.split('\n').find((line) => /^\s*Total\s/.test(line));
      expect(totals, text).toBeDefined();
      expect(totals).toContain(kronor(json.totals.period_debit));
      expect(totals).toContain(kronor(json.totals.period_credit));
      expect(text).toContain('Företagskonto / affärskonto');
    }
  });

  it('income statement: sections and the result', async () => {
    const json = (await b.send('GET', `/reports/income-statement?${RANGE}`)).body.data;
    const text = await openPdf('income-statement');
    expectHeading(text, 'Income statement (Resultaträkning)');
    expect(text).toContain('Rörelsens intäkter');
    expect(text).toMatch(new RegExp(`Result \\(årets resultat\\)\\s+${kronor(json.result)}`));
    expect(json.result).toBe(987_654 - 40_000 - 60 * 1_250 - (59 * 60) / 2);
  });

  it('balance sheet: total assets equal total equity and liabilities', async () => {
    const json = (await b.send('GET', `/reports/balance-sheet?${RANGE}`)).body.data;
    const text = await openPdf('balance-sheet');
    expectHeading(text, 'Balance sheet (Balansräkning)');
    expect(text).toMatch(new RegExp(`Total assets\\s+${kronor(json.totals.assets)}`));
    expect(text).toMatch(new RegExp(`Total equity and liabilities\\s+${kronor(json.totals.equity_and_liabilities)}`));
    expect(json.totals.assets).toBe(json.totals.equity_and_liabilities);
  });

  it('general ledger: every account with its running balance, over several numbered pages', async () => {
    const text = await openPdf('general-ledger');
    expectHeading(text, 'General ledger (Huvudbok)');
    expect(text).toContain('1930 Företagskonto / affärskonto');
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [join(dir, `general-ledger-${target}.pdf`)], { encoding: 'utf8' }))?.[1]);
    expect(pages).toBeGreaterThan(1);
    const last = execFileSync('pdftotext', ['-layout', '-f', String(pages), '-l', String(pages), join(dir, `general-ledger-${target}.pdf`), '-'], {
      encoding: 'utf8',
    });
    expectHeading(last, 'General ledger (Huvudbok)', pages);
    const bank = (await b.send('GET', `/reports/account-balances?${RANGE}`)).body.data.accounts.find((row: { account: string }) => row.account === '1930');
    const all = execFileSync('pdftotext', ['-layout', join(dir, `general-ledger-${target}.pdf`), '-'], { encoding: 'utf8' });
    expect(all).toMatch(new RegExp(`Closing balance 1930\\s+${kronor(bank.period_debit)}\\s+${kronor(bank.period_credit)}\\s+${kronor(bank.closing_balance)}`));
  });
});
