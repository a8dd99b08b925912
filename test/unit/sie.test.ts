import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSie, encodeSie, sieAccountType, sieAmount, sieText } from '../../domain/sie/format.ts';
import { parseSie, parseSieAmount, parseSieDate, readSieLine, type SieIssue } from '../../domain/sie/parse.ts';
import { checkLooksLikeSie, decodeSieFile, readSieImport } from '../../domain/sie/import.ts';
import { DomainError } from '../../domain/kernel/errors.ts';

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
    fc.assert(fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (ore) => parseSieAmount(sieAmount(ore)) === ore));
  });

  it('reads only real calendar dates', () => {
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

describe('readSieImport (the checks an import makes before touching the books)', () => {
  const head = ['#FLAGGA 0', '#FORMAT PC8', '#SIETYP 4', '#RAR 0 20260101 20261231', '#KONTO 1930 "Företagskonto"', '#KONTO 3041 "Försäljning"'];
  const read = (...lines: string[]) => readSieImport(Buffer.from(encodeSie(file(...head, ...lines))));
  const refusal = (...lines: string[]): string => {
    try {
      read(...lines);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'SIE_INVALID') return error.message;
      throw error;
    }
    throw new Error('accepted');
  };

  it('takes verifications without a number (the importer numbers them), skips zero rows, sums #IB per account', () => {
    const imported = read(
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
        date: '2026-01-05',
        description: 'Verifikation a',
        lines: [
          { account: '1930', debit: 1_250, credit: 0, description: 'Kontant' },
          { account: '3041', debit: 0, credit: 1_250, description: null },
        ],
      },
    ]);
    // #IB of result accounts is no opening balance; the zero row's account is not "used".
    expect(imported.opening).toEqual([{ line: 7, account: '1930', amount: 7_450 }]);
    expect([...imported.used.keys()]).toEqual(['1930', '3041']);
    expect(imported.series).toEqual(new Map([['A', { count: 1, line: 10 }]]));
  });

  it('names the line of the first problem: a bad amount, a date outside #RAR 0, a lone row, a bad account or series', () => {
    expect(refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930 {} 1.005', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 9: #TRANS: the amount must look like -1234\.50 \(a point, at most two decimals\)/,
    );
    expect(refusal('#VER A 1 20270105 "x"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 7: #VER A 1 is dated 2027-01-05, outside the fiscal year/,
    );
    expect(refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930 {} 0.00', '}')).toMatch(/^Line 7: #VER A 1 needs at least two #TRANS rows/);
    expect(refusal('#VER A 1 20260105 "x"', '{', '#TRANS 19300 {} 1.00', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 9: #TRANS: account 19300 is not a four-digit BAS account/,
    );
    expect(refusal('#VER 1 1 20260105 "x"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -1.00', '}')).toMatch(
      /^Line 7: #VER 1 1: the series must be 1-4 letters/,
    );
    expect(refusal('#VER A 1 20260105 "x"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -2.00', '}', 'garbage')).toMatch(
      /^Line 7: #VER A 1 does not balance.* \(and 1 more problem after it\)$/,
    );
  });

  it('reads PC8, and UTF-8 when the bytes say so; refuses what is not SIE at its first line', () => {
    const text = file(...head, '#VER A 1 20260105 "Försäljning åäö"', '{', '#TRANS 1930 {} 1.00', '#TRANS 3041 {} -1.00', '}');
    expect(readSieImport(Buffer.from(encodeSie(text))).verifications[0]?.description).toBe('Försäljning åäö');
    expect(readSieImport(Buffer.from(text, 'utf8')).verifications[0]?.description).toBe('Försäljning åäö');
    expect(decodeSieFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('#FLAGGA 0', 'utf8')]))).toBe('#FLAGGA 0');
    expect(() => checkLooksLikeSie(Buffer.from('\n\n%PDF-1.4\n'))).toThrow(/^Line 3: This is not an SIE file/);
    expect(() => checkLooksLikeSie(Buffer.from('#FLAGGA 0\r\n'))).not.toThrow();
    expect(() => read()).not.toThrow();
    expect(() => readSieImport(Buffer.from(encodeSie(file('#FLAGGA 0', '#SIETYP 2', '#RAR 0 20260101 20261231'))))).toThrow(
      /^Line 2: #SIETYP 2: importSie reads SIE type 4 files/,
    );
  });
});
