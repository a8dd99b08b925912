import { randomUUID } from 'node:crypto';
import type { OperationContext } from '../context.ts';
import type { Database } from '../db/client.ts';
import { requireScope } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { defaultVatCode } from '../ledger/vat-codes.ts';
import { emitEvents } from '../events/emit.ts';
import { toAccount } from '../ledger/accounts.ts';
import { readEntries } from '../ledger/entries.ts';
import { addDays, addMonths } from '../ledger/calendar.ts';
import { committingWithinBound } from '../ledger/amount-limits.ts';
import { fiscalYearConflict, fiscalYearShapeProblem, insertFiscalYear } from '../ledger/fiscal-years.ts';
import {
  decodeSieBytes,
  detectSieEncoding,
  parseSieStream,
  readSieLine,
  MAX_REPORTED_ISSUES,
  SieIssueList,
  type SieBytes,
  type SieEncoding,
  type SieField,
  type SieIssue,
  type SieVerification,
} from './parse.ts';
import { mapSieSeries } from './series.ts';
import { sieDimensions } from './dimensions.ts';
import { ACCOUNT_NUMBER_PATTERN } from '../ledger/schemas.ts';
import { COMPARATIVE_KINDS, type ComparativeKind } from '../ledger/comparatives.ts';
import { isBalanceSheetAccount } from '../reports/balances.ts';

/**
 * SIE 4 import: the file is read as a stream and checked against itself and the books before
 * anything is written (readSieImport keeps only small tallies, not the vouchers), so a bad file
 * imports nothing and its failure names the line of the first problem. The vouchers are then
 * streamed again (sieImportVerifications) into the batches.
 * Then one transaction creates what the verifications need (the fiscal year, accounts the chart
 * lacks, dimensions and objects, the opening balances, prior years' comparative figures), and the
 * verifications follow in batches, each committed with the checkpoint that says where the next one
 * starts (domain/operations/jobs/import-sie.ts). All of it is tagged with the import and hidden
 * until the last batch; a failure or a cancel removes it (all or nothing).
 *
 * The rules, each with its SIE 4B section, are in docs/sie.md; in short:
 * - Verification series are free text in SIE 4: each maps to one of ours (domain/sie/series.ts),
 *   numbered 1, 2, … in file order, with the file's own series and number kept on the entry.
 * - The fiscal year is #RAR 0; every #VER must be dated inside it. #RAR -1 and older, with their
 *   #IB/#UB/#RES, become comparative figures where the company has no books of its own then.
 * - #IB (classes 1-2) is booked only when the company has no committed entry before the year, as
 *   one entry in series IB the day before the year starts; an unbalanced #IB is balanced on 8999.
 * - #TRANS rows carry their objects; #BTRANS/#RTRANS are not booked (the #TRANS rows are the
 *   verification as it stands); empty and zero verifications are skipped and counted.
 * - Accounts the chart lacks are created from #KONTO (existing accounts keep their names).
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
/**
 * Verifications per transaction and checkpoint, by engine. On PGlite (one connection for the whole
 * server) every other request waits while a batch's transaction runs, so a batch must stay short
 * there: at load average 2-3 on a 2-core machine, 10 vouchers took 60-190 ms and 25 took
 * 110-360 ms, the whole import about 10 % longer at 10 (docs/sie.md "Streaming"). Since the commit
 * is set-wise and the lines come keyed, 5 take 30-50 ms of CPU (70-90 ms at load 5-7); the Avendo
 * sample then imports in about 1.3 times main's time, answering twice the requests. On PostgreSQL
 * each request has its own connection and a batch delays no one, so 500 keeps the round trips
 * and checkpoints per verification low: batches of 25 there made a 50 MiB import 20 times as
 * many transactions.
 */
export const SIE_IMPORT_BATCH: Readonly<Record<Database['kind'], number>> = { pglite: 5, postgres: 500 };
/**
 * Lines a batch holds at most, by engine (a voucher more than this is a batch alone): on PGlite the
 * commit's time goes by lines, and the Avendo sample's vouchers of 21-25 lines made a batch of
 * five hold the connection twice as long as the average one.
 */
export const SIE_IMPORT_BATCH_LINES: Readonly<Record<Database['kind'], number>> = { pglite: 30, postgres: Number.POSITIVE_INFINITY };

export const SNIFF_BYTES = 64 * 1024;

export interface SieDraftLine {
  account: string;
  debit: number;
  credit: number;
  description: string | null;
}

export interface SieImportVerification {
  line: number;
  /** Ours (domain/sie/series.ts). */
  series: string;
  /** As the file wrote them (null for the opening entry, which the file has no #VER for). */
  source: { series: string; number: string } | null;
  date: string;
  description: string;
  lines: (SieDraftLine & { objects: SieLineObject[] })[];
}

/** One object on a #TRANS row: SIE 4B §8 #TRANS writes the object list as dimension–code pairs. */
export interface SieLineObject {
  dimension: number;
  code: string;
}

/** A file read and checked against itself: everything the import needs, with the lines to blame. */
export interface SieImportFile {
  /** #RAR 0; null when the file has none (then the vouchers' dates choose the year: planSieImport). */
  year: { line: number; start: string; end: string } | null;
  /** The first and last #VER date (with the line of the first #VER), null without vouchers. */
  dates: { line: number; first: string; last: string } | null;
  /** #RAR -1, when the file has it. */
  previousYear: { start: string; end: string } | null;
  /** #KONTO: number → line and name. */
  accounts: Map<string, { line: number; name: string }>;
  /** Every account booked on (#TRANS, #IB) → the first line that does. */
  used: Map<string, number>;
  /** Non-zero #IB 0 of classes 1-2, in öre (debit positive). */
  opening: { line: number; account: string; amount: number }[];
  /** How the bytes decode (detectSieEncoding): the import's later pass reads them the same way. */
  encoding: SieEncoding;
  /** Verifications the import books (without the skipped ones); sieImportVerifications yields them. */
  verificationCount: number;
  /** Each date a #VER has → the first #VER on it (line and name): the checks against the books' periods. */
  datedOn: Map<string, { line: number; name: string }>;
  transactions: number;
  /** Our series → verifications in it; and the line of its first #VER. */
  series: Map<string, { count: number; line: number }>;
  /** The file's series → ours. */
  seriesMap: Map<string, string>;
  /** #VER without a non-zero #TRANS row (voided or empty vouchers): skipped, counted in the result. */
  skipped: number;
  /** #KONTO records no balance or #TRANS uses whose number no chart can hold: skipped, counted. */
  skippedAccounts: { line: number; number: string }[];
  /** #KSUMMA's value when the file had one (it matched, or the file was refused). */
  checksum: number | null;
  /** #DIM/#UNDERDIM and every dimension an object uses, parents before their sub-dimensions. */
  dimensions: { number: number; name: string; parent: number | null }[];
  /** #OBJEKT and every object a #TRANS row uses (named by its code when the file declares none). */
  objects: { dimension: number; code: string; name: string }[];
  /** Objects on imported rows, summed over rows. */
  lineObjects: number;
  /** #RAR -1, -2, … with their #IB, #UB and #RES (non-zero, summed per account and kind): comparative figures. */
  priorYears: PriorYear[];
}

export interface PriorYear {
  line: number;
  index: number;
  start: string;
  end: string;
  balances: { account: string; kind: ComparativeKind; amount: number }[];
}

export interface SieImportPlan {
  year: { id: string | null; start: string; end: string };
  /** The file's prior years: stored as comparative figures, or left out (the company's own books, or figures it has, cover the year). */
  priorYears: { year: PriorYear; stored: boolean }[];
  opening: { line: number; date: string; year: { id: string | null; start: string; end: string }; lines: SieDraftLine[] } | null;
  createAccounts: { number: string; name: string }[];
}

/** SIE_INVALID naming the first problem's line (and listing the first few in details); `total` counts all of them. */
export function sieInvalid(issues: readonly SieIssue[], total = issues.length): DomainError {
  const sorted = [...issues].sort((a, b) => a.line - b.line);
  const first = sorted[0] as SieIssue;
  const more = total - 1;
  return new DomainError('SIE_INVALID', {
    message: `Line ${first.line}: ${first.message}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'} after it)` : ''}`,
    details: sorted.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({ path: `line ${issue.line}`, message: issue.message })),
  });
}

/** A whole file's text, PC8 or UTF-8 by the bytes (domain/sie/parse.ts detectSieEncoding has the rule). */
export const decodeSieFile = (bytes: Uint8Array): string => decodeSieBytes(bytes);

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

/** Where an import reads its file: each call streams the bytes anew (the import reads them in passes). */
export type SieSource = () => SieBytes;

/** A #VER's name in messages: `#VER A 12`, `#VER "" 3`. */
const verificationName = (verification: SieVerification): string =>
  `#VER ${verification.series === '' ? '""' : verification.series} ${verification.number}`.trimEnd();

/** A verification's non-zero rows as draft lines; `use` sees each row's account (the checking pass). */
function importLines(
  verification: SieVerification,
  readObjects: (list: SieField, line: number) => SieLineObject[],
  use?: (account: string, line: number, label: string) => void,
): SieImportVerification['lines'] {
  const lines: SieImportVerification['lines'] = [];
  for (const transaction of verification.transactions) {
    if (transaction.amount === 0) continue;
    use?.(transaction.account, transaction.line, '#TRANS');
    lines.push({
      objects: readObjects(transaction.objects, transaction.line),
      account: transaction.account,
      debit: Math.max(transaction.amount, 0),
      credit: Math.max(-transaction.amount, 0),
      description: transaction.text === null ? null : textOf(transaction.text, 500) || null,
    });
  }
  return lines;
}

/**
 * Reads and checks the whole file as it streams, keeping only what is small (chart, dimensions,
 * balances, per-series and per-date tallies); throws SIE_INVALID with the first problem's line.
 * Its verifications are read again, one by one, by sieImportVerifications.
 */
export async function readSieImport(source: SieSource): Promise<SieImportFile> {
  const encoding = await detectSieEncoding(source());
  const issues = new SieIssueList();
  const problem = (line: number, message: string): void => {
    issues.push({ line, message });
  };
  const used = new Map<string, number>();
  const use = (account: string, line: number, label: string): void => {
    if (!ACCOUNT_NUMBER_PATTERN.test(account)) {
      problem(line, `${label}: account "${account}" is not an account number (four digits 1000-9999, or a sub-account of five or six digits).`);
    } else if ((used.get(account) ?? Number.POSITIVE_INFINITY) > line) used.set(account, line);
  };
  const { readObjects, dimensionsAndObjects } = sieDimensions(problem);
  /** Every file series in first-use order (skipped vouchers too: they take part in naming). */
  const fileSeries = new Set<string>();
  /** File series → imported vouchers in it, and the line of the first. */
  const booked = new Map<string, { count: number; line: number }>();
  const datedOn = new Map<string, { line: number; name: string }>();
  let firstLine: number | null = null;
  let verificationCount = 0;
  let transactions = 0;
  let lineObjects = 0;
  let skipped = 0;
  const { document, verifications } = parseSieStream(source(), { encoding, issues });
  for await (const verification of verifications) {
    fileSeries.add(verification.series);
    firstLine ??= verification.line;
    if (!datedOn.has(verification.date)) datedOn.set(verification.date, { line: verification.line, name: verificationName(verification) });
    const lines = importLines(verification, readObjects, use);
    // The parser has checked that the rows balance, so no non-zero row means nothing was booked.
    if (lines.length === 0) {
      skipped += 1;
      continue;
    }
    verificationCount += 1;
    transactions += lines.length;
    for (const line of lines) lineObjects += line.objects.length;
    const seen = booked.get(verification.series);
    if (seen) seen.count += 1;
    else booked.set(verification.series, { count: 1, line: verification.line });
  }

  if (document.sieType === null) problem(1, 'The file has no #SIETYP record; importSie reads SIE type 4 files.');
  else if (document.sieType !== 4) {
    problem(document.lineOf.SIETYP ?? 1, `#SIETYP ${document.sieType}: importSie reads SIE type 4 files (with #VER verifications).`);
  }
  const current = document.fiscalYears.find((year) => year.yearIndex === 0);
  if (current && current.end < current.start) problem(current.line, '#RAR 0 ends before it starts.');
  const before = document.fiscalYears.find((each) => each.yearIndex === -1);
  let dates: SieImportFile['dates'] = null;
  for (const [date, { line, name }] of datedOn) {
    if (current && (date < current.start || date > current.end)) {
      problem(line, `${name} is dated ${date}, outside the fiscal year #RAR 0 (${current.start} – ${current.end}).`);
    }
    if (!dates) dates = { line: firstLine as number, first: date, last: date };
    else {
      if (date < dates.first) dates.first = date;
      if (date > dates.last) dates.last = date;
    }
  }

  const accounts = new Map<string, { line: number; name: string }>();
  const unusable: { line: number; number: string }[] = [];
  for (const account of document.accounts) {
    if (!ACCOUNT_NUMBER_PATTERN.test(account.number)) unusable.push({ line: account.line, number: account.number });
    else accounts.set(account.number, { line: account.line, name: textOf(account.name, 200) || `Konto ${account.number}` });
  }

  const openingByAccount = new Map<string, { line: number; account: string; amount: number }>();
  for (const balance of document.balances) {
    if (balance.kind !== 'IB' || balance.yearIndex !== 0 || balance.amount === 0 || !isBalanceSheetAccount(balance.account)) continue;
    use(balance.account, balance.line, '#IB');
    const known = openingByAccount.get(balance.account);
    if (known) known.amount += balance.amount;
    else openingByAccount.set(balance.account, { line: balance.line, account: balance.account, amount: balance.amount });
  }

  const seriesMap = mapSieSeries(fileSeries) ?? new Map<string, string>();
  if (seriesMap.size === 0 && fileSeries.size > 0) problem(firstLine ?? 1, 'The file uses more voucher series than can be told apart.');
  const series = new Map<string, { count: number; line: number }>();
  for (const [original, tally] of booked) series.set(seriesMap.get(original) ?? '', tally);
  const { dimensions, objects } = dimensionsAndObjects(document);
  const priorYears: PriorYear[] = [];
  for (const year of document.fiscalYears) {
    if (year.yearIndex >= 0) continue;
    if (year.end < year.start) problem(year.line, `#RAR ${year.yearIndex} ends before it starts.`);
    const sums = new Map<string, { account: string; kind: ComparativeKind; amount: number }>();
    for (const balance of document.balances) {
      if (balance.yearIndex !== year.yearIndex || balance.amount === 0) continue;
      if (!ACCOUNT_NUMBER_PATTERN.test(balance.account)) {
        problem(
          balance.line,
          `#${balance.kind}: account "${balance.account}" is not an account number (four digits 1000-9999, or a sub-account of five or six digits).`,
        );
        continue;
      }
      const key = `${balance.account} ${balance.kind}`;
      const known = sums.get(key);
      if (known) known.amount += balance.amount;
      else sums.set(key, { account: balance.account, kind: balance.kind, amount: balance.amount });
    }
    const order = (kind: ComparativeKind) => COMPARATIVE_KINDS.indexOf(kind);
    const balances = [...sums.values()]
      .filter((balance) => balance.amount !== 0)
      .sort((a, b) => (a.account === b.account ? order(a.kind) - order(b.kind) : a.account < b.account ? -1 : 1));
    priorYears.push({ line: year.line, index: year.yearIndex, start: year.start, end: year.end, balances });
  }
  priorYears.sort((a, b) => b.index - a.index);
  if (issues.count > 0) throw sieInvalid(issues.first, issues.count);
  return {
    encoding,
    datedOn,
    priorYears,
    dimensions,
    objects,
    lineObjects,
    year: current ? { line: current.line, start: current.start, end: current.end } : null,
    dates,
    previousYear: before ? { start: before.start, end: before.end } : null,
    accounts,
    used,
    opening: [...openingByAccount.values()].filter((balance) => balance.amount !== 0),
    verificationCount,
    transactions,
    series,
    seriesMap,
    skipped,
    skippedAccounts: unusable.filter((account) => !used.has(account.number)),
    checksum: document.checksum?.stated ?? null,
  };
}

/**
 * The file's verifications to book, in file order, read from the bytes again one at a time (the
 * skipped ones left out): only the current one is held. `file` is readSieImport's reading of the
 * same bytes, so nothing here can fail but a file that changed between the two reads.
 */
export async function* sieImportVerifications(source: SieSource, file: SieImportFile): AsyncGenerator<SieImportVerification> {
  const issues = new SieIssueList();
  const { readObjects } = sieDimensions((line, message) => issues.push({ line, message }));
  for await (const verification of parseSieStream(source(), { encoding: file.encoding, issues }).verifications) {
    const lines = importLines(verification, readObjects);
    if (lines.length === 0) continue;
    const label = `${verification.series}${verification.series && verification.number ? ' ' : ''}${verification.number}`.trim();
    yield {
      line: verification.line,
      series: file.seriesMap.get(verification.series) ?? '',
      source: { series: verification.series.slice(0, 100), number: verification.number.slice(0, 100) },
      date: verification.date,
      description: textOf(verification.text, 500) || `Verifikation ${label || `rad ${verification.line}`}`.slice(0, 500),
      lines,
    };
  }
  if (issues.count > 0) throw new Error(`sieImportVerifications: the file read differently the second time (line ${issues.first[0]?.line})`);
}

interface YearRow {
  id: string;
  start_date: string;
  end_date: string;
  closed: boolean;
}

/**
 * The year the file's vouchers go into: #RAR 0 when the file has it. Without it (SIE 4B makes
 * #RAR mandatory only where balances refer to years; a voucher file such as a till's daily
 * export writes none) it is the company's fiscal year holding the first voucher, or else the
 * calendar year of the first voucher, the fiscal year Bokföringslagen (1999:1078) 3 kap. 1 §
 * gives a company that chose none. Every voucher must lie in it (checked in planSieImport).
 */
function importYear(file: SieImportFile, years: readonly YearRow[]): { line: number; start: string; end: string } {
  if (file.year) return file.year;
  if (!file.dates) return { line: 1, start: '', end: '' };
  const { line, first } = file.dates;
  const holder = years.find((year) => year.start_date <= first && first <= year.end_date);
  if (holder) return { line, start: holder.start_date, end: holder.end_date };
  return { line, start: `${first.slice(0, 4)}-01-01`, end: `${first.slice(0, 4)}-12-31` };
}

/**
 * Checks the file against the company's books and says what the import will create. Takes the
 * company's row lock (as createFiscalYear does), so two imports — or an import and a new fiscal
 * year — are planned one after the other. Throws SIE_INVALID with the first problem's line.
 */
export async function planSieImport(ctx: OperationContext, companyId: string, file: SieImportFile): Promise<SieImportPlan> {
  await ctx.db.$queryRaw`SELECT id FROM companies WHERE id = ${companyId}::uuid FOR NO KEY UPDATE`;
  // One import of a company at a time: a second would plan against a year the first is still writing.
  const [running] = await ctx.db.$queryRaw<{ operation_id: string }[]>`
    SELECT operation_id FROM pending_imports WHERE company_id = ${companyId}::uuid LIMIT 1`;
  if (running) {
    throw new DomainError('CONFLICT', {
      message: `Another SIE import of this company (operation ${running.operation_id}) is still running; import this file once it has finished.`,
    });
  }
  const issues: SieIssue[] = [];
  const problem = (line: number, message: string): void => {
    issues.push({ line, message });
  };
  const years = await ctx.db.$queryRaw<YearRow[]>`
    SELECT id, start_date::text AS start_date, end_date::text AS end_date, closed_at IS NOT NULL AS closed
      FROM fiscal_years WHERE company_id = ${companyId}::uuid ORDER BY start_date`;
  const { start, end, line: yearLine } = importYear(file, years);
  const named = file.year ? '#RAR 0' : `The vouchers' fiscal year`;
  const existing = years.find((year) => year.start_date === start && year.end_date === end) ?? null;
  if (!file.year && start !== '') {
    let outside: { line: number; date: string } | null = null;
    for (const [date, { line }] of file.datedOn) {
      if ((date < start || date > end) && (!outside || line < outside.line)) outside = { line, date };
    }
    if (outside) {
      problem(
        outside.line,
        `The file has no #RAR 0, and this #VER (${outside.date}) lies outside the fiscal year ${start} – ${end} of the file's first voucher.`,
      );
    }
  }
  if (start === '') {
    problem(yearLine, 'The file names no fiscal year (#RAR 0) and has no #VER whose dates could choose one.');
  } else if (!existing) {
    const refused = fiscalYearShapeProblem(start, end) ?? fiscalYearConflict(years, start, end);
    if (refused) problem(yearLine, `${named} (${start} – ${end}) is not a fiscal year this company can have: ${refused.message}`);
  } else if (existing.closed) {
    problem(yearLine, `${named}: the company's fiscal year ${start} – ${end} is closed.`);
  } else {
    const locked = await ctx.db.$queryRaw<{ start: string; end: string }[]>`
      SELECT start_date::text AS start, end_date::text AS end FROM periods
       WHERE company_id = ${companyId}::uuid AND fiscal_year_id = ${existing.id}::uuid AND locked_at IS NOT NULL`;
    for (const [date, { line }] of file.datedOn) {
      if (date < start || date > end) continue;
      const period = locked.find((each) => each.start <= date && date <= each.end);
      if (period) problem(line, `This #VER is dated ${date}, in the locked period ${period.start.slice(0, 7)}.`);
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
      opening = { line, date, year, lines };
    }
  }
  // A prior year becomes comparative figures only where the company has nothing of its own for
  // it: no committed entry dated in it, and no comparative year overlapping it.
  const priorYears: SieImportPlan['priorYears'] = [];
  for (const year of file.priorYears) {
    const [taken] = await ctx.db.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM journal_entries e
                      WHERE e.company_id = ${companyId}::uuid AND e.status = 'committed' AND e.date BETWEEN ${year.start}::date AND ${year.end}::date)
          OR EXISTS (SELECT 1 FROM comparative_years
                      WHERE company_id = ${companyId}::uuid AND start_date <= ${year.end}::date AND end_date >= ${year.start}::date) AS found`;
    priorYears.push({ year, stored: !taken?.found });
  }
  if (issues.length > 0) throw sieInvalid(issues);
  return { year: { id: existing?.id ?? null, start, end }, priorYears, opening, createAccounts };
}

/** What an import does (its dry run) or did (its result), as JSON. */
export function sieImportSummary(file: SieImportFile, plan: SieImportPlan): Record<string, unknown> {
  return {
    fiscal_year: { start_date: plan.year.start, end_date: plan.year.end, created: plan.year.id === null },
    verifications: file.verificationCount,
    transactions: file.transactions,
    series: Object.fromEntries([...file.series].map(([series, { count }]) => [series, count])),
    // The file's series → ours, where the name changed (domain/sie/series.ts).
    series_renamed: Object.fromEntries([...file.seriesMap].filter(([original, ours]) => original !== ours)),
    skipped_verifications: file.skipped,
    skipped_accounts: file.skippedAccounts.map((account) => account.number),
    checksum_verified: file.checksum !== null,
    dimensions: file.dimensions.length,
    objects: file.objects.length,
    line_objects: file.lineObjects,
    accounts_created: plan.createAccounts.map((account) => account.number),
    prior_years: plan.priorYears.map(({ year, stored }) => ({
      year: year.index,
      start_date: year.start,
      end_date: year.end,
      balances: year.balances.length,
      stored,
    })),
    opening_balance: plan.opening && {
      date: plan.opening.date,
      series: OPENING_SERIES,
      lines: plan.opening.lines.length,
      fiscal_year_created: plan.opening.year.id === null,
    },
  };
}

/** The years the first setup step made or found: the rest of the setup and the batches write into them. */
export interface SieImportYears {
  fiscalYearId: string;
  openingYearId: string | null;
}

/*
 * The setup — everything before the verifications — in four steps, each short enough for its own
 * transaction: on PGlite a transaction holds the server's one connection, and the setup in one
 * took about 400 ms for a file of 567 accounts (every request waited that long). The first step
 * writes the pending_imports row, so everything the later steps write names the import and stays
 * hidden and removable until completeSieImport (docs/sie.md "All or nothing"); a setup cut short
 * is removed before it runs again (the job's importAll).
 */

/** Setup step 1: the fiscal years (with their periods) and the pending_imports row. */
export async function beginSieImport(ctx: OperationContext, companyId: string, importId: string, plan: SieImportPlan): Promise<SieImportYears> {
  requireScope(ctx, 'companies:write');
  const fiscalYearId = plan.year.id ?? (await insertFiscalYear(ctx.db, companyId, plan.year.start, plan.year.end, importId)).id;
  const openingYearId = plan.opening
    ? (plan.opening.year.id ?? (await insertFiscalYear(ctx.db, companyId, plan.opening.year.start, plan.opening.year.end, importId)).id)
    : null;
  await ctx.db.$executeRaw`
    INSERT INTO pending_imports (company_id, operation_id, fiscal_year_id, opening_fiscal_year_id)
    VALUES (${companyId}::uuid, ${importId}::uuid, ${fiscalYearId}::uuid, ${openingYearId}::uuid)`;
  return { fiscalYearId, openingYearId };
}

/**
 * Accounts per transaction of setup step 2, by engine. A file brings hundreds (the Avendo sample
 * 567), and on PGlite inserting them all held the one connection 100-200 ms at load 2-6; on
 * PostgreSQL nobody waits for them, so one statement.
 */
export const SIE_IMPORT_ACCOUNT_BATCH: Readonly<Record<Database['kind'], number>> = { pglite: 150, postgres: Number.POSITIVE_INFINITY };

/** Setup step 2: some of the accounts the chart lacks (plan.createAccounts), in one statement. */
export async function addSieImportAccounts(
  ctx: OperationContext,
  companyId: string,
  importId: string,
  created: readonly SieImportPlan['createAccounts'][number][],
): Promise<void> {
  if (created.length === 0) return;
  await ctx.db.$executeRaw`
    INSERT INTO accounts (id, company_id, number, name, vat_code, import_id)
    SELECT a.id, ${companyId}::uuid, a.number, a.name, a.vat_code, ${importId}::uuid
      FROM unnest(${created.map(() => randomUUID())}::uuid[], ${created.map((a) => a.number)}::text[], ${created.map((a) => a.name)}::text[],
                  ${created.map((a) => defaultVatCode(a.number))}::text[]) AS a(id, number, name, vat_code)`;
}

/** Setup step 3: the dimensions and objects the company lacks (its own keep their names), and the comparative years. */
export async function addSieImportDimensionsAndComparatives(
  ctx: OperationContext,
  companyId: string,
  importId: string,
  file: SieImportFile,
  plan: SieImportPlan,
): Promise<void> {
  for (const dimension of file.dimensions) {
    await ctx.db.$executeRaw`
      INSERT INTO dimensions (company_id, number, name, parent_number, import_id)
      VALUES (${companyId}::uuid, ${dimension.number}::int, ${dimension.name}, ${dimension.parent}::int, ${importId}::uuid)
      ON CONFLICT (company_id, number) DO NOTHING`;
  }
  const { objects } = file;
  if (objects.length > 0) {
    await ctx.db.$executeRaw`
      INSERT INTO dimension_objects (company_id, dimension_number, code, name, import_id)
      SELECT ${companyId}::uuid, o.dimension, o.code, o.name, ${importId}::uuid
        FROM unnest(${objects.map((o) => o.dimension)}::int[], ${objects.map((o) => o.code)}::text[], ${objects.map((o) => o.name)}::text[])
             AS o(dimension, code, name)
      ON CONFLICT (company_id, dimension_number, code) DO NOTHING`;
  }
  for (const { year, stored } of plan.priorYears) {
    if (!stored) continue;
    await ctx.db.$executeRaw`
      INSERT INTO comparative_years (company_id, start_date, end_date, import_id)
      VALUES (${companyId}::uuid, ${year.start}::date, ${year.end}::date, ${importId}::uuid)`;
    if (year.balances.length === 0) continue;
    await ctx.db.$executeRaw`
      INSERT INTO comparative_balances (company_id, year_start, account, kind, amount)
      SELECT ${companyId}::uuid, ${year.start}::date, b.account, b.kind, b.amount
        FROM unnest(${year.balances.map((b) => b.account)}::text[], ${year.balances.map((b) => b.kind)}::text[],
                    ${year.balances.map((b) => String(b.amount))}::bigint[]) AS b(account, kind, amount)`;
  }
}

/**
 * Setup step 4: the opening entry (from #IB, in the year before) and the file's series reserved in
 * the year (counter rows at 0). Returns the opening entry's id, if any.
 */
export async function openSieImport(
  ctx: OperationContext,
  companyId: string,
  importId: string,
  file: SieImportFile,
  plan: SieImportPlan,
  years: SieImportYears,
): Promise<string | null> {
  let openingEntryId: string | null = null;
  if (plan.opening && years.openingYearId) {
    const [id] = await importSieBatch(ctx, companyId, importId, years.openingYearId, [
      {
        line: plan.opening.line,
        series: OPENING_SERIES,
        source: null,
        date: plan.opening.date,
        description: OPENING_DESCRIPTION,
        lines: plan.opening.lines.map((line) => ({ ...line, objects: [] })),
      },
    ]);
    openingEntryId = id ?? null;
  }
  await ctx.db.$executeRaw`
    INSERT INTO journal_series_counters (company_id, fiscal_year_id, series, last_number)
    SELECT ${companyId}::uuid, ${years.fiscalYearId}::uuid, s.series, 0 FROM unnest(${[...file.series.keys()]}::text[]) AS s(series)
    ON CONFLICT (company_id, fiscal_year_id, series) DO NOTHING`;
  return openingEntryId;
}

/**
 * Drafts and commits a batch of verifications set-wise, in the caller's transaction, under the
 * commit rules (the trigger checks each balances; periods are share-locked and must be open).
 * Numbers come from the series counters, so they continue gaplessly from the previous batch.
 * The entries name the import and stay hidden until it completes; their journal_entry.committed
 * events follow once they are visible (announceSieImport). Returns the new entries' ids.
 */
export async function importSieBatch(
  ctx: OperationContext,
  companyId: string,
  importId: string,
  fiscalYearId: string,
  batch: readonly SieImportVerification[],
): Promise<string[]> {
  if (batch.length === 0) return [];
  // The commit trigger's statements are planned afresh for this transaction: a plan cached while
  // journal_lines was small scans the table per entry (PGlite keeps one session and never
  // analyzes), which made an import quadratic in its size.
  await ctx.db.$executeRaw`SET LOCAL plan_cache_mode = force_custom_plan`;
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
  const ids = batch.map(() => randomUUID());
  await ctx.db.$executeRaw`
    INSERT INTO journal_entries (id, company_id, date, description, series, source_series, source_number, created_by_api_key_id, import_id)
    SELECT v.id, ${companyId}::uuid, v.date, v.description, v.series, v.source_series, v.source_number, ${ctx.actor?.apiKeyId ?? null}::uuid, ${importId}::uuid
      FROM unnest(${ids}::uuid[], ${batch.map((v) => v.date)}::date[], ${batch.map((v) => v.description)}::text[], ${batch.map((v) => v.series)}::text[],
                  ${batch.map((v) => v.source?.series ?? null)}::text[], ${batch.map((v) => v.source?.number ?? null)}::text[])
           AS v(id, date, description, series, source_series, source_number)`;
  const lines = batch.flatMap((verification, index) =>
    verification.lines.map((line, lineIndex) => ({
      ...line,
      entryId: ids[index] as string,
      lineNo: lineIndex + 1,
      entry: verification,
      number: numbers[index] as number,
    })),
  );
  // The lines carry the general ledger key from the start (the commit trigger then rewrites none of
  // them: on PGlite rewriting them was most of a batch's commit). Nobody sees them as drafts: they
  // are committed in this transaction.
  const inserted = await ctx.db.$executeRaw`
    INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit, description, fiscal_year_id, account_number, entry_date, series, entry_number)
    SELECT ${companyId}::uuid, l.entry_id, l.line_no, a.id, l.debit, l.credit, l.description, ${fiscalYearId}::uuid, a.number, l.date, l.series, l.number
      FROM unnest(${lines.map((l) => l.entryId)}::uuid[], ${lines.map((l) => l.lineNo)}::int[], ${lines.map((l) => l.account)}::text[],
                  ${lines.map((l) => String(l.debit))}::bigint[], ${lines.map((l) => String(l.credit))}::bigint[], ${lines.map((l) => l.description)}::text[],
                  ${lines.map((l) => l.entry.date)}::date[], ${lines.map((l) => l.entry.series)}::text[], ${lines.map((l) => l.number)}::int[])
           AS l(entry_id, line_no, account, debit, credit, description, date, series, number)
      JOIN accounts a ON a.company_id = ${companyId}::uuid AND a.number = l.account`;
  if (inserted !== lines.length) throw new Error(`importSieBatch: ${inserted} of ${lines.length} lines inserted`);
  // Objects go on while the entries are drafts: once committed, a line's objects are fixed (trigger).
  const objects = lines.flatMap((line) => line.objects.map((object) => ({ ...object, entryId: line.entryId, lineNo: line.lineNo })));
  if (objects.length > 0) {
    await ctx.db.$executeRaw`
      INSERT INTO journal_line_objects (company_id, entry_id, line_no, dimension_number, object_code)
      SELECT ${companyId}::uuid, o.entry_id, o.line_no, o.dimension, o.code
        FROM unnest(${objects.map((o) => o.entryId)}::uuid[], ${objects.map((o) => o.lineNo)}::int[], ${objects.map((o) => o.dimension)}::int[],
                    ${objects.map((o) => o.code)}::text[]) AS o(entry_id, line_no, dimension, code)`;
  }

  const committed = await committingWithinBound(
    () => ctx.db.$executeRaw`
    UPDATE journal_entries e
       SET status = 'committed', number = v.number, fiscal_year_id = ${fiscalYearId}::uuid, period_id = v.period_id, committed_at = ${ctx.services.now()}
      FROM unnest(${ids}::uuid[], ${numbers}::int[], ${periodIds}::uuid[]) AS v(id, number, period_id)
     WHERE e.company_id = ${companyId}::uuid AND e.id = v.id`,
  );
  if (committed !== batch.length) throw new Error(`importSieBatch: ${committed} of ${batch.length} entries committed`);
  return ids;
}

/**
 * The end of an import, in a transaction after its last batch: the pending row goes, so everything
 * the import wrote becomes the company's at once, and the small tables forget the import. Returns
 * the ids of the accounts it created (in number order), for announceSieImportAccounts; the
 * entries are announced by announceSieImport.
 */
export async function completeSieImport(ctx: OperationContext, companyId: string, importId: string): Promise<string[]> {
  await ctx.db.$executeRaw`DELETE FROM pending_imports WHERE company_id = ${companyId}::uuid AND operation_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`UPDATE fiscal_years SET import_id = NULL WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  const accounts = await ctx.db.$queryRaw<{ id: string; number: string }[]>`
    UPDATE accounts SET import_id = NULL WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid RETURNING id, number`;
  await ctx.db.$executeRaw`UPDATE dimensions SET import_id = NULL WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`UPDATE dimension_objects SET import_id = NULL WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`UPDATE comparative_years SET import_id = NULL WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  return accounts.sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0)).map((account) => account.id);
}

/** account.created for accounts a completed import created (ids from completeSieImport), in number order. */
export async function announceSieImportAccounts(ctx: OperationContext, companyId: string, ids: readonly string[]): Promise<void> {
  const accounts = await ctx.db.account.findMany({ where: { companyId, id: { in: [...ids] } }, orderBy: { number: 'asc' } });
  await emitEvents(ctx, companyId, 'account.created', accounts.map(toAccount));
}

/**
 * journal_entry.committed for the next SIE_IMPORT_BATCH entries of a completed import after
 * `after` (in id order, so a rerun continues where the last transaction ended): as short a
 * transaction as a batch's. Returns the last id announced, or null when none was left.
 */
export async function announceSieImport(ctx: OperationContext, companyId: string, importId: string, after: string | null): Promise<string | null> {
  const rows = await ctx.db.$queryRaw<{ id: string }[]>`
    SELECT id FROM journal_entries
     WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid AND id > coalesce(${after}::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
     ORDER BY id LIMIT ${SIE_IMPORT_BATCH[ctx.services.database.kind]}`;
  if (rows.length === 0) return null;
  const ids = rows.map((row) => row.id);
  await emitEvents(ctx, companyId, 'journal_entry.committed', await readEntries(ctx, companyId, ids));
  return ids.at(-1) ?? null;
}

/** Whether the import still has a pending row: what it wrote is hidden and may be removed. */
export async function sieImportPending(ctx: OperationContext, companyId: string, importId: string): Promise<boolean> {
  const [row] = await ctx.db.$queryRaw<{ found: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM pending_imports WHERE company_id = ${companyId}::uuid AND operation_id = ${importId}::uuid) AS found`;
  return row?.found ?? false;
}

/** Entries removed per transaction when an import is undone. */
export const SIE_REMOVE_BATCH = 2000;

/**
 * Removes up to SIE_REMOVE_BATCH entries of a pending import (the triggers allow it only while
 * the import is pending; their lines and objects go with them). Returns how many it removed.
 */
export async function removeSieImportEntries(ctx: OperationContext, companyId: string, importId: string): Promise<number> {
  return ctx.db.$executeRaw`
    DELETE FROM journal_entries
     WHERE company_id = ${companyId}::uuid AND id IN (SELECT id FROM journal_entries
                                                        WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid
                                                        LIMIT ${SIE_REMOVE_BATCH})`;
}

/**
 * The rest of an undone import, once its entries are gone, in one transaction: the series
 * counters of its years fall back to the numbers still booked (and the ones it reserved go), then
 * its objects, dimensions, accounts, the pending row, and the fiscal years it created.
 */
export async function removeSieImportRest(ctx: OperationContext, companyId: string, importId: string): Promise<void> {
  const [pending] = await ctx.db.$queryRaw<{ fiscal_year_id: string; opening_fiscal_year_id: string | null }[]>`
    SELECT fiscal_year_id, opening_fiscal_year_id FROM pending_imports
     WHERE company_id = ${companyId}::uuid AND operation_id = ${importId}::uuid FOR UPDATE`;
  if (!pending) return;
  const years = [pending.fiscal_year_id, ...(pending.opening_fiscal_year_id ? [pending.opening_fiscal_year_id] : [])];
  await ctx.db.$executeRaw`
    UPDATE journal_series_counters c
       SET last_number = coalesce((SELECT max(e.number) FROM journal_entries e
                                    WHERE e.company_id = c.company_id AND e.fiscal_year_id = c.fiscal_year_id AND e.series = c.series), 0)
     WHERE c.company_id = ${companyId}::uuid AND c.fiscal_year_id = ANY(${years}::uuid[])`;
  await ctx.db.$executeRaw`
    DELETE FROM journal_series_counters WHERE company_id = ${companyId}::uuid AND fiscal_year_id = ANY(${years}::uuid[]) AND last_number = 0`;
  await ctx.db.$executeRaw`DELETE FROM comparative_years WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`DELETE FROM dimension_objects WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`DELETE FROM dimensions WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`DELETE FROM accounts WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`DELETE FROM pending_imports WHERE company_id = ${companyId}::uuid AND operation_id = ${importId}::uuid`;
  await ctx.db.$executeRaw`DELETE FROM fiscal_years WHERE company_id = ${companyId}::uuid AND import_id = ${importId}::uuid`;
}
