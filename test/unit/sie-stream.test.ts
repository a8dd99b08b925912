import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeSie } from '../../domain/sie/format.ts';
import {
  detectSieEncoding,
  MAX_REPORTED_ISSUES,
  MAX_SIE_LINE_CHARS,
  parseSie,
  parseSieStream,
  SIE_PARSE_SLICE_BYTES,
  sieChunks,
  SieIssueList,
  type SieIssue,
  type SieVerification,
} from '../../domain/sie/parse.ts';

/** The bytes in chunks of `size` (the last one shorter), as storage or a socket would hand them over. */
async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Everything the streaming reader makes of the bytes fed in chunks of `size`. */
async function readStream(bytes: Uint8Array, size: number) {
  const encoding = await detectSieEncoding(chunked(bytes, size));
  const issues: SieIssue[] = [];
  const { document, verifications } = parseSieStream(chunked(bytes, size), { encoding, issues });
  const read: SieVerification[] = [];
  for await (const verification of verifications) read.push(verification);
  return { encoding, document, verifications: read, issues };
}

// The checksummed records (SIE 4B §7: labels with #, field contents only, no block lines).
const records = [
  '#FLAGGA 0',
  '#FORMAT PC8',
  '#SIETYP 4',
  '#FNAMN "Räksmörgås AB"',
  '#RAR 0 20260101 20261231',
  '#KONTO 1930 "Företagskonto"',
  '#KONTO 3041 "Försäljning tjänst"',
  '#DIM 6 "Projekt"',
  '#OBJEKT 6 "P1" "Ö-projektet"',
  '#VER A 1 20260105 "Försäljning åäö ÅÄÖ é"',
  '{',
  '   #TRANS 1930 {6 "P1"} 1250.50 20260105 "Kontant"',
  '   #TRANS 3041 {} -1250.50',
  '}',
  '#VER "" "" 20260106 "Utan serie"',
  '{',
  '\t#TRANS 1930 {} 10.00',
  '\t#TRANS 3041 {} -10.00',
  '}',
];
const covered =
  '#FLAGGA0#FORMATPC8#SIETYP4#FNAMNRäksmörgås AB#RAR02026010120261231#KONTO1930Företagskonto#KONTO3041Försäljning tjänst#DIM6Projekt#OBJEKT6P1Ö-projektet#VERA120260105Försäljning åäö ÅÄÖ é#TRANS19306P11250.5020260105Kontant#TRANS3041-1250.50#VER20260106Utan serie#TRANS193010.00#TRANS3041-10.00';
const text = ['#KSUMMA', ...records, `#KSUMMA ${crc32(encodeSie(covered))}`, ''].join('\r\n');

describe('parseSieStream (the file read as its bytes arrive)', () => {
  it('reads the same file in 1-byte, 7-byte and whole chunks: CP437 letters, lines split across chunks, #KSUMMA', async () => {
    const bytes = encodeSie(text);
    // Every Swedish letter is one CP437 byte, so a 1- or 7-byte chunk ends inside most lines and words.
    expect(bytes.length).toBe(text.length);
    const whole = await readStream(bytes, bytes.length);
    expect(whole.issues).toEqual([]);
    expect(whole.encoding).toBe('cp437');
    expect(whole.document.companyName).toBe('Räksmörgås AB');
    expect(whole.document.checksum).toEqual({ line: 21, stated: crc32(encodeSie(covered)), computed: crc32(encodeSie(covered)) });
    expect(whole.verifications.map((v) => [v.line, v.series, v.text, v.transactions.map((t) => [t.line, t.account, t.objects, t.amount])])).toEqual([
      [
        11,
        'A',
        'Försäljning åäö ÅÄÖ é',
        [
          [13, '1930', ['6', 'P1'], 125_050],
          [14, '3041', [], -125_050],
        ],
      ],
      [
        16,
        '',
        'Utan serie',
        [
          [18, '1930', [], 1_000],
          [19, '3041', [], -1_000],
        ],
      ],
    ]);
    expect(await readStream(bytes, 1)).toEqual(whole);
    expect(await readStream(bytes, 7)).toEqual(whole);
    // The whole-text reader agrees.
    const { document, issues } = parseSie(text);
    expect(issues).toEqual([]);
    expect(document.verifications).toEqual(whole.verifications);
  });

  it('reads UTF-8 (with or without a byte-order mark) across chunks that split its two-byte letters', async () => {
    const cp437 = await readStream(encodeSie(text), 64);
    const utf8 = Buffer.from(text, 'utf8');
    for (const bytes of [utf8, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8])]) {
      for (const size of [1, 7, bytes.length]) {
        const read = await readStream(bytes, size);
        expect(read.encoding).toBe('utf8');
        expect(read).toEqual({ ...cp437, encoding: 'utf8' });
      }
    }
  });

  it('catches one changed öre in #KSUMMA whatever the chunks', async () => {
    const changed = encodeSie(text.replace('1250.50', '1250.51').replace('-1250.50', '-1250.51'));
    for (const size of [1, 7, changed.length]) {
      const { issues } = await readStream(changed, size);
      expect(issues.map((issue) => issue.line)).toEqual([21]);
      expect(issues[0]?.message).toMatch(/^#KSUMMA \d+ does not match the records before it/);
    }
  });

  it('reads a file larger than a parse slice from one chunk (a Buffer) as from many', async () => {
    const lines = ['#FLAGGA 0', '#SIETYP 4', '#RAR 0 20260101 20261231'];
    for (let index = 1, length = 0; length < 3 * SIE_PARSE_SLICE_BYTES; index += 1) {
      length += 80;
      lines.push(`#VER A ${index} 20260105 "Åtgärd ${index}"`, '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -1.00', '}');
    }
    const bytes = encodeSie(lines.join('\r\n'));
    const encoding = await detectSieEncoding(sieChunks(bytes));
    const { verifications } = parseSieStream(sieChunks(bytes), { encoding, issues: [] });
    let count = 0;
    for await (const verification of verifications) {
      count += 1;
      expect(verification.text).toBe(`Åtgärd ${count}`);
    }
    expect(count).toBe((lines.length - 3) / 5);
    expect(await readStream(bytes, 4096)).toEqual(await readStream(bytes, bytes.length));
  });

  it('refuses a line longer than MAX_SIE_LINE_CHARS at its line and reads on after it', async () => {
    const bytes = encodeSie(['#FLAGGA 0', `#FNAMN "${'x'.repeat(MAX_SIE_LINE_CHARS + 10)}"`, '#SIETYP 4'].join('\r\n'));
    for (const size of [1000, bytes.length]) {
      const { issues, document } = await readStream(bytes, size);
      expect(issues).toEqual([{ line: 2, message: expect.stringMatching(/^The line is longer than/) }]);
      expect(document.sieType).toBe(4);
      expect(document.lineOf.SIETYP).toBe(3);
    }
  });
});

describe('SieIssueList', () => {
  it('keeps the first problems by line and counts all of them', () => {
    const list = new SieIssueList();
    for (let line = 1000; line > 0; line -= 1) list.push({ line, message: `problem ${line}` });
    list.push({ line: 3, message: 'second on line 3' });
    expect(list.count).toBe(1001);
    expect(list.first.length).toBe(MAX_REPORTED_ISSUES);
    expect(list.first.slice(0, 4).map((issue) => issue.message)).toEqual(['problem 1', 'problem 2', 'problem 3', 'second on line 3']);
  });
});
