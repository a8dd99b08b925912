import { randomUUID } from 'node:crypto';
import type { OperationContext } from '../context.ts';
import { requireScope } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvents } from '../events/emit.ts';
import { createAccount } from '../ledger/accounts.ts';
import { defaultVatCode } from '../ledger/vat-codes.ts';
import { addDays, addMonths } from '../ledger/calendar.ts';
import { bookEntry } from '../ledger/commit.ts';
import { readEntries } from '../ledger/entries.ts';
import { fiscalYearConflict, fiscalYearShapeProblem, insertFiscalYear } from '../ledger/fiscal-years.ts';
import { decodeSie } from './format.ts';
import { parseSie, readSieLine, type SieIssue } from './parse.ts';

/**
 * SIE 4 import (issue 15): the file is read whole and checked against itself and the books before
 * anything is written, so a bad file imports nothing and its failure names the line of the first
 * problem. Then one transaction creates what the verifications need (the fiscal year, accounts the
 * chart lacks, the opening balances), and the verifications follow in batches, each committed with
 * the checkpoint that says where the next one starts (domain/operations/jobs/import-sie.ts).
 *
 * Decisions, as the operation's description states them:
 * - Verifications keep the file's series (upper-cased) and are numbered 1, 2, … in file order —
 *   exactly the file's numbers when they are gapless, as exportSie writes them. A series that
 *   already has entries in that year refuses the import, so a file imported twice is refused
 *   rather than doubled; the import reserves its series when it starts.
 * - The fiscal year is #RAR 0: the company's year with exactly those dates, or a new one (it must
 *   fit beside the others). Every #VER must be dated inside it. The #VER date is the entry's date;
 *   #TRANS dates, dimension objects, #RTRANS/#BTRANS and the registration date are not kept.
 * - #IB (classes 1-2) is booked only when the company has no committed entry before the year: one
 *   entry in series IB on the day before the year starts (in the year before it, created when
 *   missing), so the year's opening balances are the file's exactly. An #IB that does not balance
 *   (earlier results never moved to equity) is balanced on 8999, where the exporting books held it
 *   as results. A company with earlier books keeps its own opening balances.
 * - Accounts the chart lacks are created from #KONTO (existing accounts keep their names); zero
 *   #TRANS rows are skipped.
 */

/** SIE files are text: 50 MiB holds several hundred thousand verifications. */
export const MAX_SIE_BYTES = 50 * 1024 * 1024;
/** What clients send SIE files as; the content decides (it must read as SIE records). */
export const SIE_UPLOAD_CONTENT_TYPES = ['text/plain', 'application/octet-stream'] as const;
/** The opening-balance entry's series, in the year before the imported one. */
export const OPENING_SERIES = 'IB';
export const OPENING_DESCRIPTION = 'Ingående balans (SIE-import)';
/** Where an unbalanced #IB's difference goes: earlier years' results, as the exporter held them. */
export const EARLIER_RESULT_ACCOUNT = '8999';
/** Verifications per transaction and checkpoint: small enough to stay well inside the transaction timeout. */
export const SIE_IMPORT_BATCH = 500;

const BAS_NUMBER = /^[1-8]\d{3}$/;
const SERIES = /^[A-Z]{1,4}$/;
/** The problems a refusal lists in `details` (the message names the first). */
const MAX_REPORTED_ISSUES = 20;
const SNIFF_BYTES = 64 * 1024;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface SieDraftLine {
  account: string;
  debit: number;
  credit: number;
  description: string | null;
}

export interface SieImportVerification {
  line: number;
  series: string;
  date: string;
  description: string;
  lines: SieDraftLine[];
}

/** A file read and checked against itself: everything the import needs, with the lines to blame. */
export interface SieImportFile {
  year: { line: number; start: string; end: string };
  /** #RAR -1, when the file has it. */
  previousYear: { start: string; end: string } | null;
  /** #KONTO: number → line and name. */
  accounts: Map<string, { line: number; name: string }>;
  /** Every account booked on (#TRANS, #IB) → the first line that does. */
  used: Map<string, number>;
  /** Non-zero #IB 0 of classes 1-2, in öre (debit positive). */
  opening: { line: number; account: string; amount: number }[];
  verifications: SieImportVerification[];
  transactions: number;
  /** Series → verifications in it; and the line of its first #VER. */
  series: Map<string, { count: number; line: number }>;
}

export interface SieImportPlan {
  year: { id: string | null; start: string; end: string };
  opening: { date: string; year: { id: string | null; start: string; end: string }; lines: SieDraftLine[] } | null;
  createAccounts: { number: string; name: string }[];
}

/** SIE_INVALID naming the first problem's line (and listing the first few in details). */
export function sieInvalid(issues: readonly SieIssue[]): DomainError {
  const sorted = [...issues].sort((a, b) => a.line - b.line);
  const first = sorted[0] as SieIssue;
  const more = sorted.length - 1;
  return new DomainError('SIE_INVALID', {
    message: `Line ${first.line}: ${first.message}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'} after it)` : ''}`,
    details: sorted.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({ path: `line ${issue.line}`, message: issue.message })),
  });
}

/**
 * The file's text. SIE 4 is PC8 (code page 437); a file with a UTF-8 byte-order mark, or whose
 * non-ASCII bytes are all valid UTF-8 (which CP437 Swedish text never is), was written as UTF-8.
 */
export function decodeSieFile(bytes: Buffer): string {
  if (bytes.subarray(0, 3).equals(UTF8_BOM)) return bytes.subarray(3).toString('utf8');
  if (bytes.some((byte) => byte >= 0x80)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      // Not UTF-8: PC8, as the format says.
    }
  }
  return decodeSie(bytes);
}

/** The quick check at upload: the first line is an SIE record (the whole file is read by the job). */
export function checkLooksLikeSie(bytes: Buffer): void {
  const lines = decodeSieFile(bytes.subarray(0, SNIFF_BYTES)).split(/\r?\n/);
  const index = lines.findIndex((line) => line.trim() !== '');
  const line = index + 1;
  if (index < 0) throw sieInvalid([{ line: 1, message: 'The file has no SIE records.' }]);
  const issues: SieIssue[] = [];
  const record = readSieLine(lines[index] as string, line, issues);
  if (issues.length > 0) throw sieInvalid([{ line, message: `This is not an SIE file: ${(issues[0] as SieIssue).message}` }]);
  if (!record || record.label === '{' || record.label === '}')
    throw sieInvalid([{ line, message: 'This is not an SIE file: it must begin with a record such as #FLAGGA.' }]);
}

const textOf = (value: string, max: number): string => value.trim().slice(0, max);

/** Reads and checks the whole file; throws SIE_INVALID with the first problem's line. */
export function readSieImport(bytes: Buffer): SieImportFile {
  const { document, issues } = parseSie(decodeSieFile(bytes));
  const problem = (line: number, message: string): void => {
    issues.push({ line, message });
  };
  if (document.sieType === null) problem(1, 'The file has no #SIETYP record; importSie reads SIE type 4 files.');
  else if (document.sieType !== 4) {
    problem(document.lineOf.SIETYP ?? 1, `#SIETYP ${document.sieType}: importSie reads SIE type 4 files (with #VER verifications).`);
  }
  const current = document.fiscalYears.find((year) => year.yearIndex === 0);
  if (!current) problem(document.lineOf.SIETYP ?? 1, 'The file names no fiscal year: #RAR 0 is missing.');
  else if (current.end < current.start) problem(current.line, '#RAR 0 ends before it starts.');
  const year = current ? { line: current.line, start: current.start, end: current.end } : { line: 1, start: '', end: '' };
  const before = document.fiscalYears.find((each) => each.yearIndex === -1);

  const accounts = new Map<string, { line: number; name: string }>();
  for (const account of document.accounts) {
    if (!BAS_NUMBER.test(account.number)) problem(account.line, `#KONTO ${account.number}: account numbers are four digits, 1000-8999 (BAS).`);
    else accounts.set(account.number, { line: account.line, name: textOf(account.name, 200) || `Konto ${account.number}` });
  }

  const used = new Map<string, number>();
  const use = (account: string, line: number, label: string): void => {
    if (!BAS_NUMBER.test(account)) problem(line, `${label}: account ${account} is not a four-digit BAS account (1000-8999).`);
    else if (!used.has(account)) used.set(account, line);
  };

  const openingByAccount = new Map<string, { line: number; account: string; amount: number }>();
  for (const balance of document.balances) {
    if (balance.kind !== 'IB' || balance.yearIndex !== 0 || balance.amount === 0 || balance.account >= '3') continue;
    use(balance.account, balance.line, '#IB');
    const known = openingByAccount.get(balance.account);
    if (known) known.amount += balance.amount;
    else openingByAccount.set(balance.account, { line: balance.line, account: balance.account, amount: balance.amount });
  }

  const series = new Map<string, { count: number; line: number }>();
  let transactions = 0;
  const verifications: SieImportVerification[] = [];
  for (const verification of document.verifications) {
    const name = `#VER ${verification.series} ${verification.number}`.trimEnd();
    const letters = verification.series.toUpperCase();
    if (!SERIES.test(letters)) problem(verification.line, `${name}: the series must be 1-4 letters A-Z.`);
    if (current && (verification.date < current.start || verification.date > current.end)) {
      problem(verification.line, `${name} is dated ${verification.date}, outside the fiscal year #RAR 0 (${current.start} – ${current.end}).`);
    }
    const lines: SieDraftLine[] = [];
    for (const transaction of verification.transactions) {
      if (transaction.amount === 0) continue;
      use(transaction.account, transaction.line, '#TRANS');
      lines.push({
        account: transaction.account,
        debit: Math.max(transaction.amount, 0),
        credit: Math.max(-transaction.amount, 0),
        description: transaction.text === null ? null : textOf(transaction.text, 500) || null,
      });
    }
    if (lines.length < 2) problem(verification.line, `${name} needs at least two #TRANS rows with non-zero amounts.`);
    transactions += lines.length;
    const seen = series.get(letters);
    if (seen) seen.count += 1;
    else series.set(letters, { count: 1, line: verification.line });
    verifications.push({
      line: verification.line,
      series: letters,
      date: verification.date,
      description: textOf(verification.text, 500) || `Verifikation ${name.slice(5)}`,
      lines,
    });
  }
  if (issues.length > 0) throw sieInvalid(issues);
  return {
    year,
    previousYear: before ? { start: before.start, end: before.end } : null,
    accounts,
    used,
    opening: [...openingByAccount.values()].filter((balance) => balance.amount !== 0),
    verifications,
    transactions,
    series,
  };
}

interface YearRow {
  id: string;
  start_date: string;
  end_date: string;
  closed: boolean;
}

/**
 * Checks the file against the company's books and says what the import will create. Takes the
 * company's row lock (as createFiscalYear does), so two imports — or an import and a new fiscal
 * year — are planned one after the other. Throws SIE_INVALID with the first problem's line.
 */
export async function planSieImport(ctx: OperationContext, companyId: string, file: SieImportFile): Promise<SieImportPlan> {
  await ctx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR NO KEY UPDATE`;
  const issues: SieIssue[] = [];
  const problem = (line: number, message: string): void => {
    issues.push({ line, message });
  };
  const years = await ctx.db.$queryRaw<YearRow[]>`
    SELECT id, start_date::text AS start_date, end_date::text AS end_date, closed_at IS NOT NULL AS closed
      FROM fiscal_years WHERE company_id = ${companyId}::uuid ORDER BY start_date`;
  const { start, end, line: yearLine } = file.year;
  const existing = years.find((year) => year.start_date === start && year.end_date === end) ?? null;
  if (!existing) {
    const refused = fiscalYearShapeProblem(start, end) ?? fiscalYearConflict(years, start, end);
    if (refused) problem(yearLine, `#RAR 0 (${start} – ${end}) is not a fiscal year this company can have: ${refused.message}`);
  } else if (existing.closed) {
    problem(yearLine, `#RAR 0: the company's fiscal year ${start} – ${end} is closed.`);
  } else {
    const locked = await ctx.db.$queryRaw<{ start: string; end: string }[]>`
      SELECT start_date::text AS start, end_date::text AS end FROM periods
       WHERE company_id = ${companyId}::uuid AND fiscal_year_id = ${existing.id}::uuid AND locked_at IS NOT NULL`;
    for (const verification of file.verifications) {
      const period = locked.find((each) => each.start <= verification.date && verification.date <= each.end);
      if (period) problem(verification.line, `This #VER is dated ${verification.date}, in the locked period ${period.start.slice(0, 7)}.`);
    }
    const taken = await ctx.db.$queryRaw<{ series: string }[]>`
      SELECT series FROM journal_series_counters
       WHERE company_id = ${companyId}::uuid AND fiscal_year_id = ${existing.id}::uuid AND series = ANY(${[...file.series.keys()]}::text[])`;
    for (const { series } of taken) {
      problem(
        file.series.get(series)?.line ?? yearLine,
        `Series ${series} of the fiscal year ${start} – ${end} is already in use (entries, or an earlier import of it); import into a year whose series are unused.`,
      );
    }
  }

  const chart = new Map(
    (await ctx.db.$queryRaw<{ number: string; active: boolean }[]>`SELECT number, active FROM accounts WHERE company_id = ${companyId}::uuid`).map(
      (account) => [account.number, account.active],
    ),
  );
  const createAccounts = [...file.accounts].filter(([number]) => !chart.has(number)).map(([number, { name }]) => ({ number, name }));
  for (const [number, line] of file.used) {
    const active = chart.get(number);
    if (active === undefined && !file.accounts.has(number))
      problem(line, `Account ${number} is neither in the chart of accounts nor declared by a #KONTO record.`);
    else if (active === false) problem(line, `Account ${number} is inactive in the chart of accounts.`);
  }

  let opening: SieImportPlan['opening'] = null;
  const firstOpening = file.opening[0];
  if (firstOpening && start !== '') {
    const [earlier] = await ctx.db.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM journal_entries WHERE company_id = ${companyId}::uuid AND status = 'committed' AND date < ${start}::date) AS found`;
    if (!earlier?.found) {
      const date = addDays(start, -1);
      const line = firstOpening.line;
      const holder = years.find((year) => year.start_date <= date && date <= year.end_date);
      let year: { id: string | null; start: string; end: string };
      if (holder) {
        year = { id: holder.id, start: holder.start_date, end: holder.end_date };
        const [period] = await ctx.db.$queryRaw<{ locked: boolean }[]>`
          SELECT locked_at IS NOT NULL AS locked FROM periods
           WHERE company_id = ${companyId}::uuid AND start_date <= ${date}::date AND end_date >= ${date}::date`;
        if (holder.closed || period?.locked)
          problem(line, `#IB: the opening balances are booked on ${date}, and that ${holder.closed ? 'fiscal year is closed' : 'period is locked'}.`);
      } else {
        const previousStart = file.previousYear?.end === date ? file.previousYear.start : addMonths(start, -12);
        year = { id: null, start: previousStart, end: date };
        const beside = existing ? years : [...years, { start_date: start, end_date: end }];
        const refused = fiscalYearShapeProblem(previousStart, date) ?? fiscalYearConflict(beside, previousStart, date);
        if (refused)
          problem(
            line,
            `#IB: the opening balances are booked on ${date}, in a fiscal year ${previousStart} – ${date} that cannot be created: ${refused.message}`,
          );
      }
      const lines: SieDraftLine[] = file.opening.map((balance) => ({
        account: balance.account,
        debit: Math.max(balance.amount, 0),
        credit: Math.max(-balance.amount, 0),
        description: null,
      }));
      const total = file.opening.reduce((sum, balance) => sum + balance.amount, 0);
      if (total !== 0) {
        lines.push({ account: EARLIER_RESULT_ACCOUNT, debit: Math.max(-total, 0), credit: Math.max(total, 0), description: 'Tidigare års resultat' });
        const active = chart.get(EARLIER_RESULT_ACCOUNT);
        if (active === false) problem(line, `#IB does not balance and its difference goes to account ${EARLIER_RESULT_ACCOUNT}, which is inactive.`);
        if (active === undefined && !file.accounts.has(EARLIER_RESULT_ACCOUNT)) createAccounts.push({ number: EARLIER_RESULT_ACCOUNT, name: 'Årets resultat' });
      }
      opening = { date, year, lines };
    }
  }
  if (issues.length > 0) throw sieInvalid(issues);
  return { year: { id: existing?.id ?? null, start, end }, opening, createAccounts };
}

/** What an import does (its dry run) or did (its result), as JSON. */
export function sieImportSummary(file: SieImportFile, plan: SieImportPlan): Record<string, unknown> {
  return {
    fiscal_year: { start_date: plan.year.start, end_date: plan.year.end, created: plan.year.id === null },
    verifications: file.verifications.length,
    transactions: file.transactions,
    series: Object.fromEntries([...file.series].map(([series, { count }]) => [series, count])),
    accounts_created: plan.createAccounts.map((account) => account.number),
    opening_balance: plan.opening && {
      date: plan.opening.date,
      series: OPENING_SERIES,
      lines: plan.opening.lines.length,
      fiscal_year_created: plan.opening.year.id === null,
    },
  };
}

/**
 * Everything before the verifications, in the caller's transaction: the fiscal years, the
 * accounts, the opening entry, and the file's series reserved in the year (counter rows at 0).
 */
export async function prepareSieImport(
  ctx: OperationContext,
  companyId: string,
  file: SieImportFile,
  plan: SieImportPlan,
): Promise<{ fiscalYearId: string; openingEntryId: string | null }> {
  requireScope(ctx, 'companies:write');
  const fiscalYearId = plan.year.id ?? (await insertFiscalYear(ctx.db, companyId, plan.year.start, plan.year.end)).id;
  if (plan.opening && plan.opening.year.id === null) await insertFiscalYear(ctx.db, companyId, plan.opening.year.start, plan.opening.year.end);
  for (const account of plan.createAccounts) await createAccount(ctx, companyId, { ...account, vat_code: defaultVatCode(account.number) });
  const opening = plan.opening
    ? await bookEntry(ctx, companyId, { date: plan.opening.date, description: OPENING_DESCRIPTION, series: OPENING_SERIES, lines: plan.opening.lines })
    : null;
  await ctx.db.$executeRaw`
    INSERT INTO journal_series_counters (company_id, fiscal_year_id, series, last_number)
    SELECT ${companyId}::uuid, ${fiscalYearId}::uuid, s.series, 0 FROM unnest(${[...file.series.keys()]}::text[]) AS s(series)
    ON CONFLICT (company_id, fiscal_year_id, series) DO NOTHING`;
  return { fiscalYearId, openingEntryId: opening?.id ?? null };
}

/**
 * Drafts and commits a batch of verifications set-wise, in the caller's transaction, under the
 * commit rules (the trigger checks each balances; periods are share-locked and must be open) and
 * with journal_entry.committed for each. Numbers come from the series counters, so they continue
 * gaplessly from the previous batch.
 */
export async function importSieBatch(ctx: OperationContext, companyId: string, fiscalYearId: string, batch: readonly SieImportVerification[]): Promise<void> {
  if (batch.length === 0) return;
  const periods = await ctx.db.$queryRaw<{ id: string; start: string; end: string; locked: boolean; closed: boolean }[]>`
    SELECT p.id, p.start_date::text AS start, p.end_date::text AS end, p.locked_at IS NOT NULL AS locked, y.closed_at IS NOT NULL AS closed
      FROM periods p JOIN fiscal_years y ON y.company_id = p.company_id AND y.id = p.fiscal_year_id
     WHERE p.company_id = ${companyId}::uuid AND p.fiscal_year_id = ${fiscalYearId}::uuid
       FOR SHARE OF p`;
  const periodIds = batch.map((verification) => {
    const period = periods.find((each) => each.start <= verification.date && verification.date <= each.end);
    if (!period) throw new DomainError('NO_FISCAL_YEAR', { message: `Line ${verification.line}: no period of the fiscal year covers ${verification.date}.` });
    if (period.closed) throw new DomainError('FISCAL_YEAR_CLOSED', { message: 'The fiscal year was closed while the import ran.' });
    if (period.locked) {
      throw new DomainError('PERIOD_LOCKED', { message: `Line ${verification.line}: the period ${period.start.slice(0, 7)} was locked while the import ran.` });
    }
    return period.id;
  });
  const accountNumbers = [...new Set(batch.flatMap((verification) => verification.lines.map((line) => line.account)))];
  const [accounts] = await ctx.db.$queryRaw<{ active: bigint }[]>`
    SELECT count(*)::bigint AS active FROM (SELECT id FROM accounts
     WHERE company_id = ${companyId}::uuid AND number = ANY(${accountNumbers}::text[]) AND active FOR SHARE) a`;
  if (Number(accounts?.active ?? 0) !== accountNumbers.length) {
    throw new DomainError('ACCOUNT_INACTIVE', { message: 'An account the file books on was deactivated while the import ran.' });
  }

  const ids = batch.map(() => randomUUID());
  await ctx.db.$executeRaw`
    INSERT INTO journal_entries (id, company_id, date, description, series, created_by_api_key_id)
    SELECT v.id, ${companyId}::uuid, v.date, v.description, v.series, ${ctx.actor?.apiKeyId ?? null}::uuid
      FROM unnest(${ids}::uuid[], ${batch.map((v) => v.date)}::date[], ${batch.map((v) => v.description)}::text[], ${batch.map((v) => v.series)}::text[])
           AS v(id, date, description, series)`;
  const lines = batch.flatMap((verification, index) =>
    verification.lines.map((line, lineIndex) => ({ ...line, entryId: ids[index] as string, lineNo: lineIndex + 1 })),
  );
  const inserted = await ctx.db.$executeRaw`
    INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit, description)
    SELECT ${companyId}::uuid, l.entry_id, l.line_no, a.id, l.debit, l.credit, l.description
      FROM unnest(${lines.map((l) => l.entryId)}::uuid[], ${lines.map((l) => l.lineNo)}::int[], ${lines.map((l) => l.account)}::text[],
                  ${lines.map((l) => String(l.debit))}::bigint[], ${lines.map((l) => String(l.credit))}::bigint[], ${lines.map((l) => l.description)}::text[])
           AS l(entry_id, line_no, account, debit, credit, description)
      JOIN accounts a ON a.company_id = ${companyId}::uuid AND a.number = l.account`;
  if (inserted !== lines.length) throw new Error(`importSieBatch: ${inserted} of ${lines.length} lines inserted`);

  const counts = new Map<string, number>();
  for (const verification of batch) counts.set(verification.series, (counts.get(verification.series) ?? 0) + 1);
  const series = [...counts.keys()].sort();
  const counters = await ctx.db.$queryRaw<{ series: string; last_number: number }[]>`
    INSERT INTO journal_series_counters (company_id, fiscal_year_id, series, last_number)
    SELECT ${companyId}::uuid, ${fiscalYearId}::uuid, s.series, s.n FROM unnest(${series}::text[], ${series.map((s) => counts.get(s) as number)}::int[]) AS s(series, n)
    ON CONFLICT (company_id, fiscal_year_id, series) DO UPDATE SET last_number = journal_series_counters.last_number + EXCLUDED.last_number
    RETURNING series, last_number`;
  const next = new Map(counters.map((counter) => [counter.series, counter.last_number - (counts.get(counter.series) as number) + 1]));
  const numbers = batch.map((verification) => {
    const number = next.get(verification.series) as number;
    next.set(verification.series, number + 1);
    return number;
  });
  const committed = await ctx.db.$executeRaw`
    UPDATE journal_entries e
       SET status = 'committed', number = v.number, fiscal_year_id = ${fiscalYearId}::uuid, period_id = v.period_id, committed_at = ${ctx.services.now()}
      FROM unnest(${ids}::uuid[], ${numbers}::int[], ${periodIds}::uuid[]) AS v(id, number, period_id)
     WHERE e.company_id = ${companyId}::uuid AND e.id = v.id`;
  if (committed !== batch.length) throw new Error(`importSieBatch: ${committed} of ${batch.length} entries committed`);
  await emitEvents(ctx, companyId, 'journal_entry.committed', await readEntries(ctx, companyId, ids));
}
