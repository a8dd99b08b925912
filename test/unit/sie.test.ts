import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSie, encodeSie, sieAccountType, sieAmount, sieText } from '../../domain/sie/format.ts';
import { parseSie, parseSieAmount, parseSieDate, readSieLine, sieChunks, type SieIssue } from '../../domain/sie/parse.ts';
import { checkLooksLikeSie, decodeSieFile, readSieImport, sieImportVerifications } from '../../domain/sie/import.ts';
import { DomainError } from '../../domain/kernel/errors.ts';
import { MAX_AMOUNT_ORE } from '../../domain/ledger/amount-limits.ts';

const file = (...lines: string[]): string => `${lines.join('\r\n')}\r\n`;

describe('SIE fields', () => {
  it('writes öre as SIE amounts and reads them back exactly', () => {
    expect([sieAmount(0), sieAmount(5), sieAmount(-50), sieAmount(123_456), sieAmount(-100n)]).toEqual(['0.00', '0.05', '-0.50', '1234.56', '-1.00']);
    expect([parseSieAmount('1234.5'), parseSieAmount('-10'), parseSieAmount('0.05'), parseSieAmount('12,50'), parseSieAmount('1.234')]).toEqual([
      123_450,
      -1_000,
      5,
      null,
      null,
    ]);
    fc.assert(fc.property(fc.integer({ min: -MAX_AMOUNT_ORE, max: MAX_AMOUNT_ORE }), (ore) => parseSieAmount(sieAmount(ore)) === ore));
    // Beyond the bound every amount the service takes is held to (docs/amounts.md): not an amount.
    expect([parseSieAmount(sieAmount(MAX_AMOUNT_ORE + 1)), parseSieAmount(sieAmount(-MAX_AMOUNT_ORE - 1)), parseSieAmount('90071992547409.91')]).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('reads only real calendar dates', () => {
    expect([parseSieDate('00000101'), parseSieDate('18991231'), parseSieDate('19000101'), parseSieDate('21991231'), parseSieDate('22000101')]).toEqual([
      null,
      null,
      '1900-01-01',
      '2199-12-31',
      null,
    ]);
    expect([parseSieDate('20260228'), parseSieDate('20240229'), parseSieDate('20260230'), parseSieDate('2026-02-01')]).toEqual([
      '2026-02-28',
      '2024-02-29',
      null,
      null,
    ]);
  });

  it('quotes any text so it reads back unchanged, quotes and backslashes included', () => {
    const printable = fc.string({ unit: fc.constantFrom(...'aåäöÅÄÖé "\\{}#xyz 09'.split('')) });
    fc.assert(
      fc.property(printable, (text) => {
        const issues: SieIssue[] = [];
        const record = readSieLine(`#FNAMN ${sieText(text)}`, 1, issues);
        return issues.length === 0 && record?.fields[0] === text;
      }),
    );
    expect(sieText('line\nbreak\ttab')).toBe('"line break tab"');
  });

  it('keeps Swedish letters through CP437 as single bytes', () => {
    const bytes = encodeSie('åäöÅÄÖé');
    expect([...bytes]).toEqual([0x86, 0x84, 0x94, 0x8f, 0x8e, 0x99, 0x82]);
    expect(decodeSie(bytes)).toBe('åäöÅÄÖé');
  });

  it('writes characters CP437 lacks in their nearest CP437 form, never ?', () => {
    // Code page 437's table (IBM): no en dash, euro sign, curly quotes, ø or ş; it has å ä ö é ü ß ½ °.
    const cases: [string, string][] = [
      ['Hyra jan–mar', 'Hyra jan-mar'],
      ['Faktura 120 €', 'Faktura 120 EUR'],
      ['”Kontorsmaterial” – ’23', '"Kontorsmaterial" - \'23'],
      ['Møller & Søn', 'Moller & Son'],
      ['Kurs İstanbul, Ştefan', 'Kurs Istanbul, Stefan'],
      ['Nike™ ﬁlter…', 'NikeTM filter...'],
      ['Müller ½ kg 5 °C', 'Müller ½ kg 5 °C'],
      ['a\u030angström', 'ångström'], // decomposed å, as macOS file names spell it
      ['発注 🙂', '__ _'],
    ];
    for (const [text, expected] of cases) {
      const bytes = encodeSie(text);
      expect(decodeSie(bytes), text).toBe(expected);
      expect([...bytes], text).not.toContain(0x3f);
    }
    // Inside quoted text, a quote that a curly one became is escaped like any other.
    expect(sieText('Sagt ”ja”')).toBe('"Sagt \\"ja\\""');
    const issues: SieIssue[] = [];
    expect(readSieLine(`#FNAMN ${sieText('Sagt ”ja” – 5 €')}`, 1, issues)?.fields[0]).toBe('Sagt "ja" - 5 EUR');
    expect(issues).toEqual([]);
  });

  it('encodes a page of records (CRLF line ends, as the export encodes them) as its lines one by one', () => {
    // The export hands encodeSie a whole page at once: line ends and plain ASCII pass as they are,
    // and each other character takes the same form as in a line on its own.
    const lines = ['#VER A 1 20260101 "Hyra jan–mar" 20260102', '{', '   #TRANS 1930 {} -500.00 "" "Møller & Søn 🙂"', '}', '#FNAMN "a\u030angström ½ °C"'];
    const page = Buffer.from(encodeSie(lines.map((line) => `${line}\r\n`).join('')));
    expect(page).toEqual(Buffer.concat(lines.map((line) => Buffer.from([...encodeSie(line), 0x0d, 0x0a]))));
    expect(decodeSie(page)).toBe(
      '#VER A 1 20260101 "Hyra jan-mar" 20260102\r\n{\r\n   #TRANS 1930 {} -500.00 "" "Moller & Son _"\r\n}\r\n#FNAMN "ångström ½ °C"\r\n',
    );
    expect(decodeSie(encodeSie('plain ASCII\r\n\tkept'))).toBe('plain ASCII\r\n\tkept');
  });

  it('types accounts by class: T, S, I, K; class 8 by income or cost', () => {
    expect(['1930', '2440', '3001', '4010', '7210', '8310', '8410', '8999'].map(sieAccountType)).toEqual(['T', 'S', 'I', 'K', 'K', 'I', 'K', 'K']);
  });

  it('splits object lists and bare fields', () => {
    const issues: SieIssue[] = [];
    expect(readSieLine('   #TRANS 1930 {1 "P 1" 6 x} -500.00 20260101 "Text"', 7, issues)).toEqual({
      line: 7,
      label: 'TRANS',
      fields: ['1930', ['1', 'P 1', '6', 'x'], '-500.00', '20260101', 'Text'],
    });
    expect(issues).toEqual([]);
  });
});

describe('parseSie', () => {
  const valid = file(
    '#FLAGGA 0',
    '#FORMAT PC8',
    '#SIETYP 4',
    '#PROGRAM "Prog" 1.0',
    '#GEN 20261121',
    '#FNAMN "Bolaget AB"',
    '#ORGNR 556000-0000',
    '#RAR 0 20260101 20261231',
    '#KONTO 1930 "Bank"',
    '#KTYP 1930 T',
    '#KONTO 3001 "Försäljning"',
    '#IB 0 1930 100.00',
    '#UB 0 1930 150.50',
    '#RES 0 3001 -50.50',
    '#DIM 1 "Kostnadsställe"',
    '#VER A 1 20260105 "Sale" 20260106',
    '{',
    '   #TRANS 1930 {} 50.50',
    '   #TRANS 3001 {} -50.50 "" "Rad"',
    '}',
  );

  it('reads a valid file into company, years, accounts, balances and verifications', () => {
    const { document, issues } = parseSie(valid);
    expect(issues).toEqual([]);
    expect(document).toMatchObject({ flag: 0, format: 'PC8', sieType: 4, companyName: 'Bolaget AB', orgNumber: '556000-0000', generatedOn: '2026-11-21' });
    expect(document.fiscalYears).toEqual([{ line: 8, yearIndex: 0, start: '2026-01-01', end: '2026-12-31' }]);
    expect(document.accounts).toEqual([
      { line: 9, number: '1930', name: 'Bank', type: 'T' },
      { line: 11, number: '3001', name: 'Försäljning', type: null },
    ]);
    expect(document.balances.map(({ kind, account, amount }) => [kind, account, amount])).toEqual([
      ['IB', '1930', 10_000],
      ['UB', '1930', 15_050],
      ['RES', '3001', -5_050],
    ]);
    expect(document.verifications).toEqual([
      {
        line: 16,
        series: 'A',
        number: '1',
        date: '2026-01-05',
        text: 'Sale',
        registeredOn: '2026-01-06',
        transactions: [
          { line: 18, account: '1930', objects: [], amount: 5_050, date: null, text: null },
          { line: 19, account: '3001', objects: [], amount: -5_050, date: null, text: 'Rad' },
        ],
      },
    ]);
  });

  it('reports every problem with its line instead of throwing', () => {
    const { issues, document } = parseSie(
      file(
        '#FLAGGA 0',
        '#FNAMN "Unterminated',
        'garbage',
        '#IB 0 1930 12,50',
        '#TRANS 1930 {} 1.00',
        '#VER A 1 20260230 "Bad date"',
        '{',
        '#TRANS 1930 {} 1.00',
        '}',
        '#VER A 2 20260105 "Unbalanced"',
        '{',
        '#TRANS 1930 {} 1.00',
        '#TRANS 3001 {} -0.99',
        '#KONTO 1930 "Inside"',
        '}',
        '#VER A 3 20260105 "No block"',
        '#TRANS 1930 1.00',
        '}',
        '#VER A 4 20260105 "Open"',
        '{',
      ),
    );
    expect(issues.map((issue) => issue.line)).toEqual([2, 3, 4, 5, 6, 10, 14, 16, 17, 18, 19]);
    expect(issues.find((issue) => issue.line === 10)?.message).toContain('does not balance');
    expect(issues.find((issue) => issue.line === 6)?.message).toContain('date');
    expect(issues.find((issue) => issue.line === 19)?.message).toContain('not closed');
    // The unbalanced one is still read (an importer decides), the broken ones are not.
    expect(document.verifications.map((verification) => verification.number)).toEqual(['2']);
  });
});

/** readSieImport's reading of a file in memory, with the verifications its second pass yields. */
async function readAll(bytes: Buffer) {
  const source = () => sieChunks(bytes);
  const read = await readSieImport(source);
  const verifications = [];
  for await (const verification of sieImportVerifications(source, read)) verifications.push(verification);
  return { ...read, verifications };
}

describe('readSieImport (the checks an import makes before touching the books)', () => {
  const head = ['#FLAGGA 0', '#FORMAT PC8', '#SIETYP 4', '#RAR 0 20260101 20261231', '#KONTO 1930 "Företagskonto"', '#KONTO 3041 "Försäljning"'];
  const read = (...lines: string[]) => readAll(Buffer.from(encodeSie(file(...head, ...lines))));
  const refusal = async (...lines: string[]): Promise<string> => {
    try {
      await read(...lines);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'SIE_INVALID') return error.message;
      throw error;
    }
    throw new Error('accepted');
  };

  it('takes verifications without a number (the importer numbers them), skips zero rows, sums #IB per account', async () => {
    const imported = await read(
      '#IB 0 1930 100.00',
      '#IB 0 1930 -25.50',
      '#IB 0 3041 5.00',
      '#VER a "" 20260105 ""',
      '{',
      '#TRANS 1930 {} 12.50 "" "Kontant"',
      '#TRANS 1910 {} 0.00',
      '#TRANS 3041 {} -12.50',
      '}',
    );
    expect(imported.verifications).toEqual([
      {
        line: 10,
        series: 'A',
        source: { series: 'a', number: '' },
        date: '2026-01-05',
        description: 'Verifikation a',
        lines: [
          { account: '1930', debit: 1_250, credit: 0, description: 'Kontant', objects: [] },
          { account: '3041', debit: 0, credit: 1_250, description: null, objects: [] },
        ],
      },
    ]);
    // #IB of result accounts is no opening balance; the zero row's account is not "used".
    expect(imported.opening).toEqual([{ line: 7, account: '1930', amount: 7_450 }]);
    expect([...imported.used.keys()]).toEqual(['1930', '3041']);
    expect(imported.series).toEqual(new Map([['A', { count: 1, line: 10 }]]));
  });

  it('names the line of the first problem: a bad amount, a date outside #RAR 0, an account no chart can hold', async () => {
    expect(await refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930 {} 1.005', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 9: #TRANS: the amount must look like -1234\.50 \(a point, at most two decimals\)/,
    );
    expect(await refusal('#VER A 1 20270105 "x"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 7: #VER A 1 is dated 2027-01-05, outside the fiscal year/,
    );
    expect(await refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930A {} 1.00', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 9: #TRANS: account "1930A" is not an account number/,
    );
    expect(await refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930 {} 1.00', '#TRANS 0930 {} -1.00', '}')).toMatch(/^Line 10: #TRANS: account "0930"/);
    expect(await refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -2.00', '}', 'garbage')).toMatch(
      /^Line 7: #VER A 1 does not balance.* \(and 1 more problem after it\)$/,
    );
  });

  it('takes what real programs write: free-text and empty series, empty #ORGNR, sub-accounts and class 9, voided vouchers', async () => {
    const imported = await read(
      '#ORGNR ',
      '#KONTO 9999 "Obs-konto"',
      '#KONTO 19301 "Kassa, butik 1"',
      '#KONTO ABC "No chart holds it"',
      '#VER 1 17 20260105 "Numeric series"',
      '{',
      '#TRANS 19301 {} 10.00',
      '#TRANS 9999 {} -10.00',
      '}',
      '#VER "" "" 20260106 "No series"',
      '{',
      '#TRANS 1930 {} 5.00',
      '#TRANS 3041 {} -5.00',
      '}',
      '#VER # 3 20260107 "Hash series, voided"',
      '{',
      '#BTRANS 1930 {} 5.00',
      '#BTRANS 3041 {} -5.00',
      '}',
      '#VER A 4 20260108 "Corrected"',
      '{',
      '#TRANS 1930 {} 7.00',
      '#BTRANS 3041 {} -5.00',
      '#RTRANS 3041 {} -7.00',
      '#TRANS 3041 {} -7.00',
      '}',
      '#VER A 5 20260109 "Zero rows"',
      '{',
      '#TRANS 1930 {} 0.00',
      '#TRANS 3041 {} 0.00',
      '}',
    );
    // "1" and "" are no series of ours: they get S and SA in file order; A keeps its name.
    expect(imported.verifications.map((v) => [v.series, v.source, v.lines.map((line) => [line.account, line.debit - line.credit])])).toEqual([
      [
        'S',
        { series: '1', number: '17' },
        [
          ['19301', 1_000],
          ['9999', -1_000],
        ],
      ],
      [
        'SA',
        { series: '', number: '' },
        [
          ['1930', 500],
          ['3041', -500],
        ],
      ],
      [
        'A',
        { series: 'A', number: '4' },
        [
          ['1930', 700],
          ['3041', -700],
        ],
      ],
    ]);
    // #VER # 3 (line 21) and #VER A 5 (line 33).
    expect(imported.skipped).toBe(2);
    expect(imported.skippedAccounts).toEqual([{ line: 10, number: 'ABC' }]);
    expect(new Map(imported.seriesMap)).toEqual(
      new Map([
        ['1', 'S'],
        ['', 'SA'],
        ['#', 'SB'],
        ['A', 'A'],
      ]),
    );
  });

  it('verifies #KSUMMA: CRC-32 of the records between the two, without separators, quotes or braces (SIE 4B §7)', async () => {
    // The covered text written out by hand from the rule: labels with #, field contents only, no block lines.
    const records = ['#KONTO 1930 "Bank"', '#VER A 1 20260105 "x"', '{', '#TRANS 1930 {1 "P 1"} 1.00', '#TRANS 3041 {} -1.00', '}'];
    const covered = '#KONTO1930Bank#VERA120260105x#TRANS19301P 11.00#TRANS3041-1.00';
    const sum = crc32(encodeSie(covered));
    expect((await read('#KSUMMA', ...records, `#KSUMMA ${sum}`)).checksum).toBe(sum);
    expect(await refusal('#KSUMMA', ...records, `#KSUMMA ${sum + 1}`)).toMatch(/^Line 14: #KSUMMA \d+ does not match the records before it/);
    // One changed öre is caught.
    expect(await refusal('#KSUMMA', ...records.map((record) => record.replace('1.00', '1.01').replace('-1.00', '-1.01')), `#KSUMMA ${sum}`)).toMatch(
      /^Line 14: #KSUMMA/,
    );
    expect(await refusal('#KSUMMA', ...records)).toMatch(/^Line 7: #KSUMMA opens a checksum, but no #KSUMMA/);
  });

  it('reads PC8, and UTF-8 when the bytes say so; refuses what is not SIE at its first line', async () => {
    const text = file(...head, '#VER A 1 20260105 "Försäljning åäö"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -1.00', '}');
    expect((await readAll(Buffer.from(encodeSie(text)))).verifications[0]?.description).toBe('Försäljning åäö');
    expect((await readAll(Buffer.from(text, 'utf8'))).verifications[0]?.description).toBe('Försäljning åäö');
    expect(decodeSieFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('#FLAGGA 0', 'utf8')]))).toBe('#FLAGGA 0');
    expect(() => checkLooksLikeSie(Buffer.from('\n\n%PDF-1.4\n'))).toThrow(/^Line 3: This is not an SIE file/);
    expect(() => checkLooksLikeSie(Buffer.from('#FLAGGA 0\r\n'))).not.toThrow();
    await expect(read()).resolves.toBeDefined();
    await expect(readAll(Buffer.from(encodeSie(file('#FLAGGA 0', '#SIETYP 2', '#RAR 0 20260101 20261231'))))).rejects.toThrow(
      /^Line 2: #SIETYP 2: importSie reads SIE type 4 files/,
    );
  });
});
