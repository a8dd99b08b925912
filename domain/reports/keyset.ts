/**
 * Report paging (spec Limits; DESIGN.md §6): wherever report rows come into the process they come
 * in pages of exactly this many rows, each page ordered by a unique tuple and starting strictly
 * after the last row of the one before — never OFFSET — so no row is read twice or skipped at a
 * page boundary, however many rows share a date or an account.
 */
export const REPORT_PAGE_SIZE = 1000;

/**
 * Walks a keyset: `fetch(after, limit)` returns the next rows in the total order strictly after
 * `after` (null: from the start). Yields each page; stops at the first short page.
 */
export async function* keysetPages<Row, Key>(fetch: (after: Key | null, limit: number) => Promise<Row[]>, keyOf: (row: Row) => Key): AsyncGenerator<Row[]> {
  let after: Key | null = null;
  for (;;) {
    const page = await fetch(after, REPORT_PAGE_SIZE);
    if (page.length > 0) yield page;
    const last = page.at(-1);
    if (page.length < REPORT_PAGE_SIZE || last === undefined) return;
    after = keyOf(last);
  }
}

/**
 * keysetPages for reads that keep no page (SqlClient.eachRow): `fetch(after, limit, onRow)` hands
 * each row of the next page to `onRow` as it arrives and resolves with how many there were;
 * `afterPage` runs once each page is through (e.g. to flush what was written from it).
 */
export async function keysetRows<Row, Key>(
  fetch: (after: Key | null, limit: number, onRow: (row: Row) => void) => Promise<number>,
  keyOf: (row: Row) => Key,
  onRow: (row: Row) => void,
  afterPage: () => Promise<void> = async () => {},
): Promise<void> {
  let after: Key | null = null;
  for (;;) {
    let last: Key | null = null;
    const count = await fetch(after, REPORT_PAGE_SIZE, (row) => {
      onRow(row);
      last = keyOf(row);
    });
    await afterPage();
    if (count < REPORT_PAGE_SIZE || last === null) return;
    after = last;
  }
}
