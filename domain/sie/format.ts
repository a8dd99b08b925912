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

export const encodeSie = (text: string): Uint8Array => iconv.encode(text, SIE_ENCODING);
export const decodeSie = (bytes: Uint8Array): string => iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), SIE_ENCODING);

/** Free text, always quoted; control characters (line breaks, tabs) become spaces so a record stays on its line. */
export function sieText(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
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
