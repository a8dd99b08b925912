/**
 * A reader for SIE 4 files (the format domain/sie/format.ts describes): records with line
 * numbers, then the document an importer needs — company, fiscal years, accounts, balances and
 * verifications — with every problem reported as `{ line, message }` instead of a thrown error,
 * so an import can list all of them at once. Unknown records are skipped, as the SIE
 * specification asks of readers.
 *
 * `parseSieStream` reads the bytes as they arrive (decoding, lines and #KSUMMA across chunk
 * boundaries) and yields each verification once its block closes; what it keeps is the small part
 * of a file (chart, dimensions, objects, balances, years), never the verifications, so memory does
 * not grow with the file (docs/sie.md "Streaming"). `parseSie` reads a whole text already in memory.
 */

import { isAscii } from 'node:buffer';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { decodeSie, encodeSie } from './format.ts';
import { MAX_AMOUNT_ORE } from '../ledger/amount-limits.ts';
import { inBooksYears } from '../kernel/books-dates.ts';

export type SieField = string | readonly string[];

export interface SieRecord {
  /** 1-based line number in the file. */
  line: number;
  /** Without `#`, upper case; `{` and `}` for the lines that open and close a verification. */
  label: string;
  /** Text fields unquoted; an object list `{…}` as its tokens. */
  fields: SieField[];
}

export interface SieIssue {
  line: number;
  message: string;
}

/** Where problems go: an array, or a SieIssueList that keeps only the first few. */
export interface SieIssueSink {
  push(issue: SieIssue): unknown;
}

/** The problems a refusal lists (the message names the first and counts the rest). */
export const MAX_REPORTED_ISSUES = 20;

/**
 * A file's problems with bounded memory: the count, and the MAX_REPORTED_ISSUES of lowest line
 * (a broken file can have a problem on every line; the refusal shows only the first ones).
 */
export class SieIssueList implements SieIssueSink {
  readonly first: SieIssue[] = [];
  count = 0;

  push(issue: SieIssue): void {
    this.count += 1;
    const kept = this.first;
    if (kept.length === MAX_REPORTED_ISSUES && (kept.at(-1) as SieIssue).line <= issue.line) return;
    // Stable: an issue goes after those of its own line that came before it.
    let at = kept.length;
    while (at > 0 && (kept[at - 1] as SieIssue).line > issue.line) at -= 1;
    kept.splice(at, 0, issue);
    if (kept.length > MAX_REPORTED_ISSUES) kept.pop();
  }
}

export interface SieTransaction {
  line: number;
  account: string;
  objects: readonly string[];
  /** Öre; debit positive, credit negative. */
  amount: number;
  date: string | null;
  text: string | null;
}

export interface SieVerification {
  line: number;
  series: string;
  /** As written; empty when the file leaves numbering to the importing program. */
  number: string;
  /** ISO date, `YYYY-MM-DD`. */
  date: string;
  text: string;
  registeredOn: string | null;
  transactions: SieTransaction[];
}

export interface SieBalance {
  line: number;
  kind: 'IB' | 'UB' | 'RES';
  /** 0 the exported year, -1 the one before, … (as in #RAR). */
  yearIndex: number;
  account: string;
  /** Öre, debit positive. */
  amount: number;
}

export interface SieDocument {
  flag: number | null;
  format: string | null;
  sieType: number | null;
  program: { name: string; version: string } | null;
  generatedOn: string | null;
  companyName: string | null;
  orgNumber: string | null;
  fiscalYears: { line: number; yearIndex: number; start: string; end: string }[];
  accounts: { line: number; number: string; name: string; type: string | null }[];
  /** #DIM and #UNDERDIM (with its super-dimension as parent). */
  dimensions: { line: number; number: number; name: string; parent: number | null }[];
  /** #OBJEKT. */
  objects: { line: number; dimension: number; code: string; name: string }[];
  balances: SieBalance[];
  verifications: SieVerification[];
  /** The line of the first record of each top-level label (`SIETYP` → 3), for messages about them. */
  lineOf: Record<string, number>;
  /** #KSUMMA: the file's checksum and whether it matched ours; null when the file has none. */
  checksum: { line: number; stated: number; computed: number } | null;
}

const WHITESPACE = /[ \t]/;

/** Splits one line into a record; null for a blank line. */
export function readSieLine(text: string, line: number, issues: SieIssueSink): SieRecord | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (trimmed === '{' || trimmed === '}') return { line, label: trimmed, fields: [] };
  if (!trimmed.startsWith('#')) {
    issues.push({ line, message: `Expected a record starting with "#", found "${trimmed.slice(0, 20)}".` });
    return null;
  }
  let position = 1;
  const next = (): string => trimmed[position] ?? '';
  const skipSpace = (): void => {
    while (position < trimmed.length && WHITESPACE.test(next())) position += 1;
  };
  const readToken = (stopAt: RegExp): string => {
    const start = position;
    while (position < trimmed.length && !stopAt.test(next())) position += 1;
    return trimmed.slice(start, position);
  };
  const readQuoted = (): string | null => {
    position += 1; // the opening quote
    let value = '';
    while (position < trimmed.length) {
      const char = next();
      if (char === '\\' && (trimmed[position + 1] === '"' || trimmed[position + 1] === '\\')) {
        value += trimmed[position + 1];
        position += 2;
      } else if (char === '"') {
        position += 1;
        return value;
      } else {
        value += char;
        position += 1;
      }
    }
    issues.push({ line, message: 'A quoted text is not closed before the end of the line.' });
    return null;
  };

  const label = readToken(WHITESPACE).toUpperCase();
  if (!/^[A-Z0-9]+$/.test(label)) {
    issues.push({ line, message: `"#${label}" is not a record label.` });
    return null;
  }
  const fields: SieField[] = [];
  for (skipSpace(); position < trimmed.length; skipSpace()) {
    if (next() === '"') {
      const value = readQuoted();
      if (value === null) return null;
      fields.push(value);
    } else if (next() === '{') {
      position += 1;
      const objects: string[] = [];
      for (skipSpace(); position < trimmed.length && next() !== '}'; skipSpace()) {
        const value = next() === '"' ? readQuoted() : readToken(/[ \t}]/);
        if (value === null) return null;
        objects.push(value);
      }
      if (next() !== '}') {
        issues.push({ line, message: 'An object list "{" is not closed with "}" on the same line.' });
        return null;
      }
      position += 1;
      fields.push(objects);
    } else {
      fields.push(readToken(WHITESPACE));
    }
  }
  return { line, label, fields };
}

/** Every record of a whole text, in order, with its line number. Lexical problems go to `issues`. */
export function* readSieRecords(text: string, issues: SieIssueSink): Generator<SieRecord> {
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const record = readSieLine(lines[index] as string, index + 1, issues);
    if (record) yield record;
  }
}

/** An SIE file's bytes as they arrive (storage chunks, an upload); a Buffer is one chunk: `sieChunks`. */
export type SieBytes = AsyncIterable<Uint8Array>;

/** A buffer already in memory, as the one-chunk stream the readers take. */
export async function* sieChunks(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** PC8 (code page 437, `#FORMAT PC8`), or UTF-8 when the bytes say so (detectSieEncoding). */
export type SieEncoding = 'cp437' | 'utf8';

/**
 * Bytes decoded and split into records between two yields to the event loop: a few milliseconds
 * of parsing, so a long parse never holds the process (a chunk of 50 MiB is read in slices of this).
 * 64 KiB held it up to about 280 ms on a 2-core machine at load 5, and on PGlite no request was
 * answered meanwhile (issue 27); 16 KiB at most about 35 ms.
 */
export const SIE_PARSE_SLICE_BYTES = 16 * 1024;
/** An SIE line is a record of a few fields; a longer one is refused rather than held whole. */
export const MAX_SIE_LINE_CHARS = 64 * 1024;
const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/** Slices of at most SIE_PARSE_SLICE_BYTES, with a yield to the event loop after each such amount. */
async function* slices(source: SieBytes): AsyncGenerator<Uint8Array> {
  let sinceYield = 0;
  for await (const chunk of source) {
    for (let at = 0; at < chunk.length; at += SIE_PARSE_SLICE_BYTES) {
      const slice = chunk.subarray(at, at + SIE_PARSE_SLICE_BYTES);
      yield slice;
      sinceYield += slice.length;
      if (sinceYield >= SIE_PARSE_SLICE_BYTES) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
  }
}

/**
 * The rule for a file's encoding, fed its bytes in order (nothing kept): SIE 4 is PC8 (code page
 * 437); a UTF-8 byte-order mark, or non-ASCII bytes that are all valid UTF-8 (which CP437 Swedish
 * text never is), mean the file was written as UTF-8. The whole file decides.
 */
class SieEncodingRule {
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private position = 0;
  private bom = true;
  private nonAscii = false;
  /** Set once the bytes so far decide it (a BOM, or bytes that are not UTF-8). */
  decided: SieEncoding | null = null;

  push(bytes: Uint8Array): void {
    if (this.decided) return;
    for (let index = 0; index < bytes.length && this.position + index < UTF8_BOM.length; index += 1) {
      if (bytes[index] !== UTF8_BOM[this.position + index]) this.bom = false;
    }
    this.position += bytes.length;
    if (this.bom && this.position >= UTF8_BOM.length) {
      this.decided = 'utf8';
      return;
    }
    this.nonAscii ||= !isAscii(bytes);
    try {
      this.utf8.decode(bytes, { stream: true });
    } catch {
      this.decided = 'cp437';
    }
  }

  end(): SieEncoding {
    if (this.decided) return this.decided;
    try {
      this.utf8.decode();
    } catch {
      return 'cp437';
    }
    return this.nonAscii ? 'utf8' : 'cp437';
  }
}

/** The encoding of a file streamed once for it (SieEncodingRule); stops reading once it is decided. */
export async function detectSieEncoding(source: SieBytes): Promise<SieEncoding> {
  const rule = new SieEncodingRule();
  for await (const slice of slices(source)) {
    rule.push(slice);
    if (rule.decided) break;
  }
  return rule.end();
}

/** A whole file in memory as text, by the same rule (the upload's first-record check, tests). */
export function decodeSieBytes(bytes: Uint8Array): string {
  const rule = new SieEncodingRule();
  rule.push(bytes);
  return chunkDecoder(rule.end())(bytes, true);
}

/** Text from bytes chunk by chunk: a UTF-8 character split between chunks is completed by the next one. */
function chunkDecoder(encoding: SieEncoding): (bytes: Uint8Array, final: boolean) => string {
  if (encoding === 'utf8') {
    // Not fatal (a BOM is dropped): detectSieEncoding chose UTF-8 from the same bytes.
    const decoder = new TextDecoder('utf-8');
    return (bytes, final) => decoder.decode(bytes, { stream: !final });
  }
  // One byte one character: no state between chunks. ASCII (most of a file) is read directly.
  return (bytes) => (isAscii(bytes) ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1') : decodeSie(bytes));
}

/**
 * Every record of a file as its bytes arrive, with its line number; lexical problems go to
 * `issues`. Lines split across chunks are joined; only the current line is held.
 */
export async function* readSieRecordStream(source: SieBytes, encoding: SieEncoding, issues: SieIssueSink): AsyncGenerator<SieRecord> {
  const decode = chunkDecoder(encoding);
  let carry = '';
  let line = 0;
  let skipping = false;
  const tooLong = (at: number): void => {
    issues.push({ line: at, message: `The line is longer than ${MAX_SIE_LINE_CHARS} characters; an SIE record is one short line.` });
  };
  function* lines(text: string, final: boolean): Generator<SieRecord> {
    const parts = (carry + text).split('\n');
    carry = final ? '' : (parts.pop() as string);
    for (const part of parts) {
      line += 1;
      if (skipping) skipping = false;
      else if (part.length > MAX_SIE_LINE_CHARS) tooLong(line);
      else {
        const record = readSieLine(part, line, issues);
        if (record) yield record;
      }
    }
    // Not held whole: the rest of the line is skipped up to its end.
    if (carry.length > MAX_SIE_LINE_CHARS) {
      if (!skipping) tooLong(line + 1);
      skipping = true;
      carry = '';
    }
  }
  for await (const slice of slices(source)) yield* lines(decode(slice, false), false);
  yield* lines(decode(new Uint8Array(0), true), true);
}

/**
 * `-1234.5` → -123450 öre, exactly (no floats); null when it is not an SIE amount or lies beyond
 * MAX_AMOUNT_ORE either way (the bound every amount the service takes is held to).
 */
export function parseSieAmount(text: string): number | null {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return null;
  const ore = BigInt(match[2] as string) * 100n + BigInt((match[3] ?? '').padEnd(2, '0'));
  const signed = match[1] === '-' ? -ore : ore;
  if (signed > BigInt(MAX_AMOUNT_ORE) || signed < -BigInt(MAX_AMOUNT_ORE)) return null;
  return Number(signed);
}

/** `20260115` → `2026-01-15`; null unless it is a real calendar date in the books' years (1900-2199). */
export function parseSieDate(text: string): string | null {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (!match) return null;
  const iso = `${match[1]}-${match[2]}-${match[3]}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== iso || !inBooksYears(iso) ? null : iso;
}

const text = (field: SieField | undefined): string | null => (typeof field === 'string' ? field : null);

/**
 * The #KSUMMA checksum (SIE 4B §7): CRC-32 (polynomial 0xEDB88320, initial value and final XOR
 * 0xFFFFFFFF, as zlib's) over the PC8 bytes of every record after the opening #KSUMMA up to the
 * closing one: each record's label with its "#" and its fields' contents, without the spaces and
 * tabs between them, the quotes around text or the braces around object lists; the "{" and "}"
 * lines of a verification are not part of it. Checked against the Visma Compact and Norstedts
 * samples, whose programs wrote their checksums.
 */
class SieChecksum {
  openedOn: number | null = null;
  private crc = 0;

  open(line: number): void {
    this.openedOn = line;
  }

  add(record: SieRecord): void {
    if (this.openedOn === null || record.label === '{' || record.label === '}') return;
    const content = `#${record.label}${record.fields.map((field) => (typeof field === 'string' ? field : field.join(''))).join('')}`;
    this.crc = crc32(encodeSie(content), this.crc);
  }

  value(): number {
    return this.crc;
  }
}

/** A file's head: everything but its verifications (small, so kept whole while a file streams). */
export type SieHead = Omit<SieDocument, 'verifications'>;

/** Reads a whole SIE 4 text already in memory; every problem is an issue with its line. */
export function parseSie(source: string): { document: SieDocument; issues: SieIssue[] } {
  const issues: SieIssue[] = [];
  const reader = sieDocumentReader(issues);
  const verifications: SieVerification[] = [];
  for (const record of readSieRecords(source, issues)) {
    const verification = reader.read(record);
    if (verification) verifications.push(verification);
  }
  reader.end();
  issues.sort((a, b) => a.line - b.line);
  return { document: { ...reader.document, verifications }, issues };
}

/**
 * Reads an SIE 4 file as its bytes arrive: `verifications` yields each one as its block closes
 * (balanced or not: an unbalanced one is also an issue), and `document` fills as the records pass,
 * complete once `verifications` is done. Problems go to `issues` (a SieIssueList keeps memory
 * bounded). The encoding comes from detectSieEncoding over the same bytes.
 */
export function parseSieStream(
  source: SieBytes,
  options: { encoding: SieEncoding; issues: SieIssueSink },
): { document: SieHead; verifications: AsyncGenerator<SieVerification> } {
  const reader = sieDocumentReader(options.issues);
  async function* verifications(): AsyncGenerator<SieVerification> {
    for await (const record of readSieRecordStream(source, options.encoding, options.issues)) {
      const verification = reader.read(record);
      if (verification) yield verification;
    }
    reader.end();
  }
  return { document: reader.document, verifications: verifications() };
}

/** The record-by-record state of a file: read() returns a verification when its block closes. */
function sieDocumentReader(issues: SieIssueSink): { document: SieHead; read(record: SieRecord): SieVerification | null; end(): void } {
  const document: SieHead = {
    flag: null,
    format: null,
    sieType: null,
    program: null,
    generatedOn: null,
    companyName: null,
    orgNumber: null,
    fiscalYears: [],
    accounts: [],
    dimensions: [],
    objects: [],
    balances: [],
    lineOf: {},
    checksum: null,
  };
  const checksum = new SieChecksum();
  const accountsByNumber = new Map<string, SieDocument['accounts'][number]>();
  const problem = (line: number, message: string): void => {
    issues.push({ line, message });
  };
  const integer = (record: SieRecord, index: number, name: string): number | null => {
    const value = text(record.fields[index]);
    if (value === null || !/^-?\d+$/.test(value)) {
      problem(record.line, `#${record.label}: ${name} must be an integer, found ${JSON.stringify(record.fields[index] ?? null)}.`);
      return null;
    }
    return Number(value);
  };
  const date = (record: SieRecord, index: number, name: string, optional = false): string | null => {
    const value = text(record.fields[index]);
    if (optional && (value === null || value === '')) return null;
    const parsed = value === null ? null : parseSieDate(value);
    if (parsed === null) problem(record.line, `#${record.label}: ${name} must be a date YYYYMMDD, found ${JSON.stringify(value)}.`);
    return parsed;
  };
  const amount = (record: SieRecord, index: number): number | null => {
    const value = text(record.fields[index]);
    const parsed = value === null ? null : parseSieAmount(value);
    if (parsed === null) {
      problem(
        record.line,
        `#${record.label}: the amount must look like -1234.50 (a point, at most two decimals) and lie within ±${MAX_AMOUNT_ORE / 100} kr, found ${JSON.stringify(value)}.`,
      );
    }
    return parsed;
  };
  const required = (record: SieRecord, index: number, name: string): string | null => {
    const value = text(record.fields[index]);
    if (value === null || value === '') problem(record.line, `#${record.label}: ${name} is missing.`);
    return value === '' ? null : value;
  };

  // Mutated by readTopLevel below, so an object: TypeScript's narrowing does not follow closures.
  const state: { open: SieVerification | null; expectBlock: SieVerification | null } = { open: null, expectBlock: null };
  // A #VER whose own fields are wrong still opens its block (so its rows are not reported twice) but is left out.
  const broken = new WeakSet<SieVerification>();
  const closeVerification = (verification: SieVerification): SieVerification | null => {
    if (broken.has(verification)) return null;
    const total = verification.transactions.reduce((sum, transaction) => sum + BigInt(transaction.amount), 0n);
    if (total !== 0n) {
      problem(verification.line, `#VER ${verification.series} ${verification.number} does not balance: its #TRANS amounts add up to ${Number(total) / 100}.`);
    }
    return verification;
  };
  return { document, read, end };

  function read(record: SieRecord): SieVerification | null {
    if (record.label === 'KSUMMA' && !state.open) {
      readChecksum(record);
      return null;
    }
    checksum.add(record);
    if (state.expectBlock && record.label !== '{') {
      problem(state.expectBlock.line, `#VER ${state.expectBlock.series} ${state.expectBlock.number} must be followed by a line with "{".`);
      state.expectBlock = null;
    }
    switch (record.label) {
      case '{':
        if (state.expectBlock) {
          state.open = state.expectBlock;
          state.expectBlock = null;
        } else problem(record.line, '"{" is only allowed after #VER.');
        break;
      case '}': {
        if (!state.open) {
          problem(record.line, '"}" closes no verification.');
          break;
        }
        const closed = closeVerification(state.open);
        state.open = null;
        return closed;
      }
      case 'TRANS': {
        if (!state.open) {
          problem(record.line, '#TRANS is only allowed inside a #VER block.');
          break;
        }
        const account = required(record, 0, 'the account');
        const objects = record.fields[1];
        if (!Array.isArray(objects)) problem(record.line, '#TRANS: the object list "{}" is missing.');
        const value = amount(record, 2);
        // A row that cannot be read leaves the verification out, so its balance is not reported as well.
        if (account === null || !Array.isArray(objects) || value === null) broken.add(state.open);
        else {
          state.open.transactions.push({
            line: record.line,
            account,
            objects,
            amount: value,
            date: date(record, 3, 'the transaction date', true),
            text: text(record.fields[4]) || null,
          });
        }
        break;
      }
      case 'RTRANS':
      case 'BTRANS':
        // Added and removed rows of a changed verification; the #TRANS rows are what counts.
        if (!state.open) problem(record.line, `#${record.label} is only allowed inside a #VER block.`);
        break;
      default:
        if (state.open) {
          problem(record.line, `#${record.label} inside a #VER block; only #TRANS rows belong there.`);
          break;
        }
        readTopLevel(record);
    }
    return null;
  }

  function end(): void {
    if (state.expectBlock) problem(state.expectBlock.line, `#VER ${state.expectBlock.series} ${state.expectBlock.number} must be followed by a line with "{".`);
    if (state.open) problem(state.open.line, `#VER ${state.open.series} ${state.open.number} is not closed with "}".`);
    if (checksum.openedOn !== null && document.checksum === null) {
      problem(checksum.openedOn, '#KSUMMA opens a checksum, but no #KSUMMA with the checksum ends the file.');
    }
  }

  /** SIE 4B §7: an empty #KSUMMA starts the checksum; the last record, #KSUMMA with the CRC-32, ends it. */
  function readChecksum(record: SieRecord): void {
    const stated = text(record.fields[0]);
    if (stated === null || stated === '') {
      if (checksum.openedOn !== null) problem(record.line, '#KSUMMA without a value may appear once, at the start of the file.');
      else checksum.open(record.line);
      return;
    }
    if (checksum.openedOn === null) {
      problem(record.line, '#KSUMMA with a checksum needs an empty #KSUMMA before the records it covers.');
      return;
    }
    if (!/^\d{1,10}$/.test(stated) || Number(stated) > 0xffffffff) {
      problem(record.line, `#KSUMMA: the checksum must be an unsigned 32-bit integer, found "${stated}".`);
      return;
    }
    const computed = checksum.value();
    document.checksum = { line: record.line, stated: Number(stated), computed };
    if (computed !== Number(stated)) {
      problem(record.line, `#KSUMMA ${stated} does not match the records before it (their CRC-32 is ${computed}): the file was changed after it was written.`);
    }
  }

  function readTopLevel(record: SieRecord): void {
    document.lineOf[record.label] ??= record.line;
    switch (record.label) {
      case 'FLAGGA':
        document.flag = integer(record, 0, 'the flag');
        break;
      case 'FORMAT':
        document.format = text(record.fields[0]);
        break;
      case 'SIETYP':
        document.sieType = integer(record, 0, 'the SIE type');
        break;
      case 'PROGRAM':
        document.program = { name: text(record.fields[0]) ?? '', version: text(record.fields[1]) ?? '' };
        break;
      case 'GEN':
        document.generatedOn = date(record, 0, 'the generation date');
        break;
      case 'FNAMN':
        document.companyName = required(record, 0, 'the company name');
        break;
      case 'ORGNR':
        // Optional (SIE 4B §8); programs without the number write the record empty.
        document.orgNumber = text(record.fields[0]) || null;
        break;
      case 'RAR': {
        const yearIndex = integer(record, 0, 'the year index');
        const start = date(record, 1, 'the start date');
        const end = date(record, 2, 'the end date');
        if (yearIndex !== null && start !== null && end !== null) document.fiscalYears.push({ line: record.line, yearIndex, start, end });
        break;
      }
      case 'KONTO': {
        const number = required(record, 0, 'the account number');
        const name = text(record.fields[1]);
        if (name === null) problem(record.line, '#KONTO: the account name is missing.');
        if (number !== null && name !== null) {
          const account: SieDocument['accounts'][number] = { line: record.line, number, name, type: null };
          document.accounts.push(account);
          accountsByNumber.set(number, account);
        }
        break;
      }
      case 'KTYP': {
        const number = required(record, 0, 'the account number');
        const type = required(record, 1, 'the account type');
        const account = number === null ? undefined : accountsByNumber.get(number);
        if (type !== null && !['T', 'S', 'I', 'K'].includes(type)) problem(record.line, `#KTYP: the type must be T, S, I or K, found "${type}".`);
        else if (!account) problem(record.line, `#KTYP: account ${number} has no #KONTO before it.`);
        else account.type = type;
        break;
      }
      case 'DIM':
      case 'UNDERDIM': {
        const number = integer(record, 0, 'the dimension number');
        const name = text(record.fields[1]) ?? '';
        const parent = record.label === 'UNDERDIM' ? integer(record, 2, 'the super-dimension') : null;
        if (number !== null && (record.label === 'DIM' || parent !== null)) document.dimensions.push({ line: record.line, number, name, parent });
        break;
      }
      case 'OBJEKT': {
        const dimension = integer(record, 0, 'the dimension number');
        const code = required(record, 1, 'the object code');
        if (dimension !== null && code !== null) document.objects.push({ line: record.line, dimension, code, name: text(record.fields[2]) ?? '' });
        break;
      }
      case 'IB':
      case 'UB':
      case 'RES': {
        const yearIndex = integer(record, 0, 'the year index');
        const account = required(record, 1, 'the account');
        const value = amount(record, 2);
        if (yearIndex !== null && account !== null && value !== null) {
          document.balances.push({ line: record.line, kind: record.label, yearIndex, account, amount: value });
        }
        break;
      }
      case 'VER': {
        const series = text(record.fields[0]) ?? '';
        const number = text(record.fields[1]) ?? '';
        const verificationDate = date(record, 2, 'the verification date');
        state.expectBlock = {
          line: record.line,
          series,
          number,
          date: verificationDate ?? '',
          text: text(record.fields[3]) ?? '',
          registeredOn: date(record, 4, 'the registration date', true),
          transactions: [],
        };
        // Series and number are free text and may be empty (SIE 4B §8 #VER): a program without
        // series writes "", and a file meant for import may leave the numbering to the importer.
        if (verificationDate === null) broken.add(state.expectBlock);
        break;
      }
      default:
      // Other records (#ADRESS, #DIM, #PSALDO, …) are valid SIE this reader does not use.
    }
  }
}
