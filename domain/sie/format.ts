import iconv from 'iconv-lite';

/**
 * SIE 4 (SIE-gruppen, "SIE filformat ver 4B"): a line-oriented text file in IBM PC 8-bit
 * extended ASCII (#FORMAT PC8, code page 437) with CRLF line ends. Each record is a label
 * (`#VER`) and fields separated by spaces; text with spaces is quoted, a quote inside text is
 * written `\"` (and a backslash `\\`, so the two cannot be confused); `{…}` is an object list.
 */

export const SIE_ENCODING = 'cp437';
export const SIE_CONTENT_TYPE = 'text/plain; charset=cp437';
export const SIE_EOL = '\r\n';

/** The printable characters code page 437 has (bytes 0x20-0xFF), as iconv-lite decodes them. */
const CP437_PRINTABLE = new Set(iconv.decode(Buffer.from(Array.from({ length: 224 }, (_, i) => i + 32)), SIE_ENCODING));

/**
 * Characters CP437 lacks, spelt as a reader would (iconv-lite writes `?` for each, which silently
 * changes names and amounts in words). Typographic punctuation and currency signs common in
 * Swedish bookkeeping text; letters with diacritics CP437 lacks are handled by decomposition.
 */
const CP437_SPELLING: Readonly<Record<string, string>> = {
  '\u2010': '-', // hyphen
  '\u2011': '-', // non-breaking hyphen
  '\u2012': '-', // figure dash
  '\u2013': '-', // en dash
  '\u2014': '-', // em dash
  '\u2212': '-', // minus sign
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u2032': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u2033': '"',
  '\u00b4': "'", // acute accent on its own
  '\u2026': '...',
  '\u2022': '*', // bullet
  '\u20ac': 'EUR',
  '\u00a0': ' ', // no-break space
  '\u202f': ' ', // narrow no-break space (French thousands)
  '\u2009': ' ', // thin space
  '\u00d8': 'O', // Danish and Norwegian letters CP437 lacks (CP865 has them)
  '\u00f8': 'o',
  '\u00d5': 'O',
  '\u00f5': 'o',
  '\u0141': 'L',
  '\u0142': 'l',
  '\u0110': 'D',
  '\u0111': 'd',
  '\u00d0': 'D',
  '\u00f0': 'd',
  '\u00de': 'Th',
  '\u00fe': 'th',
  '\u0152': 'OE',
  '\u0153': 'oe',
  '\u00a9': '(c)',
  '\u00ae': '(R)',
  '\u00d7': 'x',
};

/** Stands in for a character with no CP437 form and no sensible spelling (CJK, emoji): never `?`, which reads as a question. */
const NO_FORM = '_';

/**
 * Text as code page 437 can carry it: every character CP437 has stays; the rest take their
 * nearest form (– → -, € → EUR, ş → s by dropping the accent CP437 lacks, ™ → TM by
 * compatibility decomposition), and a character with none becomes `_`. Plain ASCII returns as it is.
 */
export function toCp437(text: string): string {
  // ASCII, control characters included (a whole page of records ends its lines with CRLF), is
  // CP437 as it is. Only characters beyond it are looked at, each replaced where it stands: the
  // export encodes a page of records at once, and building that page again a character at a time
  // made most of the export's garbage (1.3 GB of 3.3 GB at 1,000,000 lines, issue 30).
  if (/^[\x00-\x7e]*$/.test(text)) return text;
  // Composed first, so a decomposed å (a + ring) is CP437's å, not an a and a lost accent. With the
  // u flag a character outside the BMP is one match, as for…of saw it.
  return text.normalize('NFC').replace(/[^\x00-\x7e]/gu, (char) => (CP437_PRINTABLE.has(char) ? char : nearestCp437(char)));
}

function nearestCp437(char: string): string {
  const spelt = CP437_SPELLING[char];
  if (spelt !== undefined) return spelt;
  // NFKD splits a letter from its accents (ş → s + ̧) and spells compatibility forms (™ → TM, ﬁ → fi).
  const decomposed = char.normalize('NFKD').replace(/\p{M}/gu, '');
  if (decomposed !== '' && [...decomposed].every((part) => CP437_PRINTABLE.has(part))) return decomposed;
  // An accent left over on its own has no place to go.
  return /^\p{M}$/u.test(char) ? '' : NO_FORM;
}

/** SIE text to CP437 bytes; what CP437 lacks has already taken its nearest form (sieText), and again here for any other field. */
export const encodeSie = (text: string): Uint8Array => iconv.encode(toCp437(text), SIE_ENCODING);
export const decodeSie = (bytes: Uint8Array): string => iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), SIE_ENCODING);

/** Free text, always quoted; control characters (line breaks, tabs) become spaces so a record stays on its line. */
export function sieText(text: string): string {
  // Mapped before quoting: a curly quote becomes `"`, which must then be escaped like any other.
  const clean = toCp437(text.replace(/[\u0000-\u001f\u007f]/g, ' '));
  return `"${clean.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Öre → SIE amount: a point before exactly two decimals, minus for credits (`-1234.50`). */
export function sieAmount(ore: bigint | number): string {
  const value = BigInt(ore);
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  return `${negative ? '-' : ''}${absolute / 100n}.${(absolute % 100n).toString().padStart(2, '0')}`;
}

/** `2026-01-15` → `20260115`. */
export const sieDate = (isoDate: string): string => isoDate.replaceAll('-', '');

export const sieRecord = (label: string, ...fields: string[]): string => `#${[label, ...fields].join(' ')}${SIE_EOL}`;

/**
 * #KTYP: T tillgång (asset), S skuld (equity and liabilities), I intäkt (revenue), K kostnad
 * (cost). Class 8 holds both financial income (80-83) and costs (84-89).
 */
export function sieAccountType(account: string): 'T' | 'S' | 'I' | 'K' {
  if (account < '2000') return 'T';
  if (account < '3000') return 'S';
  if (account < '4000') return 'I';
  if (account >= '8000' && account < '8400') return 'I';
  return 'K';
}
