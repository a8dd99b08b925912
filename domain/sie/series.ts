/**
 * Voucher series: SIE 4B (§8, #VER) makes the series free text — programs write "A", "1", "#" or
 * "" (no series at all) — while ours are one to four capital letters (ledger/schemas.ts Series).
 * A file's series that already is one of ours (after upper-casing) keeps its name; every other
 * series gets the first free name of S, SA, SB, … SZ, SAA, … in the order the file first uses it.
 * The original series and number stay on each entry (journal_entries.source_series/number).
 */

const OUR_SERIES = /^[A-Z]{1,4}$/;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** S, then SA … SZ, SAA … SZZ, SAAA … SZZZ: 18,279 names, all four letters or fewer. */
function generatedSeries(index: number): string | null {
  if (index === 0) return 'S';
  let rest = index - 1;
  for (let length = 1; length <= 3; length += 1) {
    const count = LETTERS.length ** length;
    if (rest < count) {
      let name = '';
      for (let position = 0; position < length; position += 1) {
        name = (LETTERS[rest % LETTERS.length] as string) + name;
        rest = Math.floor(rest / LETTERS.length);
      }
      return `S${name}`;
    }
    rest -= count;
  }
  return null;
}

/** The file's series (in file order) → ours; null when a file has more series than names exist. */
export function mapSieSeries(originals: Iterable<string>): Map<string, string> | null {
  const mapping = new Map<string, string>();
  const taken = new Set<string>();
  const pending: string[] = [];
  const seen = new Set<string>();
  for (const original of originals) {
    if (seen.has(original)) continue;
    seen.add(original);
    const upper = original.toUpperCase();
    if (OUR_SERIES.test(upper) && !taken.has(upper)) {
      mapping.set(original, upper);
      taken.add(upper);
    } else pending.push(original);
  }
  let index = 0;
  for (const original of pending) {
    let name = generatedSeries(index);
    while (name !== null && taken.has(name)) name = generatedSeries(++index);
    if (name === null) return null;
    mapping.set(original, name);
    taken.add(name);
    index += 1;
  }
  return mapping;
}
