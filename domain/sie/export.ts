import { PrismaSql as Prisma } from '../db/client.ts';
import type { BinaryBody } from '../kernel/binary-body.ts';
import type { OperationContext } from '../context.ts';
import { eachRow, requireScope } from '../context.ts';
import { API_VERSION } from '../kernel/version.ts';
import { addDays, isoToday } from '../ledger/calendar.ts';
import { ENTRY_VISIBLE_SQL } from '../ledger/visibility.ts';
import { type ComparativeYear, comparativeYearEnding } from '../ledger/comparatives.ts';
import { accountBalances, closingOf, isBalanceSheetAccount } from '../reports/balances.ts';
import type { ByteSink } from '../reports/byte-stream.ts';
import { keysetPages, keysetRows } from '../reports/keyset.ts';
import { fiscalYearNotFound } from '../reports/range.ts';
import { companyHeading } from '../reports/company-heading.ts';
import type { ReportPeriod } from '../reports/schemas.ts';
import { streamFromSnapshot } from '../reports/snapshot.ts';
import { encodeSie, SIE_CONTENT_TYPE, sieAccountType, sieAmount, sieDate, sieRecord, sieText } from './format.ts';

/**
 * SIE 4 export (type 4E: everything — chart, balances and verifications) of one fiscal year:
 * identification records, #KONTO/#KTYP per account, #IB/#UB for balance-sheet accounts and #RES
 * for result accounts (this year as 0 and, when it exists, the previous year as -1), then one
 * #VER per committed entry with its #TRANS rows. Accounts and lines are read in keyset pages of
 * REPORT_PAGE_SIZE and each page is encoded and handed to the reader before the next is read,
 * all in one snapshot, so the balances and the verifications agree and memory stays flat.
 */

export const SIE_PROGRAM = 'Accounting Service';

interface YearRow {
  id: string;
  start_date: string;
  end_date: string;
}

interface VoucherLine {
  series: string;
  number: number;
  date: string;
  description: string;
  registered: string;
  line_no: number;
  account: string;
  debit: bigint;
  credit: bigint;
  line_description: string | null;
  objects: { dimension: number; object: string }[];
}

/** SIE 4B's object list of #TRANS: `{1 "Nord" 6 "P1"}`, dimension number then quoted object code; `{}` for none. */
export const sieObjectList = (objects: readonly { dimension: number; object: string }[]): string =>
  `{${objects.map((object) => `${object.dimension} ${sieText(object.object)}`).join(' ')}}`;

/**
 * The entries a page of `limit` lines can reach: the one the cursor is in, then entries of at least
 * two lines each (the ledger commits no entry with fewer), so limit/2 + 1 entries always hold the
 * next `limit` lines. Fetching them first by the (fiscal year, series, number) index keeps each
 * page's cost to its own rows: joining first and sorting made every page read the whole year
 * (1,000,000 lines took minutes per thousand pages in `npm run bench report`).
 */
const ENTRIES_PER_PAGE = (limit: number): number => Math.floor(limit / 2) + 1;

/**
 * A page of the verifications' lines, read through the bare driver (eachRow: prepared once, rows
 * as pg parses them, each handled as it arrives). Through Prisma's raw query each row was parsed by pg and then copied and
 * mapped again: one export of 1,000,000 lines made V8 promote 554 MB out of its young generation
 * that way and 361 MB this way (issue 30). $1 company, $2 fiscal year, $3 entries (ENTRIES_PER_PAGE),
 * $4 lines; after the first page ($5, $6, $7) is the (series, number, line) it starts after.
 */
const linePageSql = (after: boolean): string => `
  WITH next AS (
    SELECT e.id, e.series, e.number, e.date, e.description, e.committed_at FROM journal_entries e
     WHERE e.company_id = $1::uuid AND e.fiscal_year_id = $2::uuid AND e.status = 'committed' AND ${ENTRY_VISIBLE_SQL}
       ${after ? 'AND (e.series, e.number) >= ($5::text, $6::int)' : ''}
     ORDER BY e.series, e.number
     LIMIT $3::int)
  SELECT e.series, e.number, e.date::text AS date, e.description,
         to_char(e.committed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS registered,
         l.line_no, a.number AS account, l.debit, l.credit, l.description AS line_description,
         coalesce((SELECT json_agg(json_build_object('dimension', o.dimension_number, 'object', o.object_code) ORDER BY o.dimension_number)
                     FROM journal_line_objects o
                    WHERE o.company_id = l.company_id AND o.entry_id = l.entry_id AND o.line_no = l.line_no), '[]'::json) AS objects
    FROM journal_lines l
    JOIN next e ON e.id = l.entry_id
    JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
   WHERE l.company_id = $1::uuid AND l.entry_id = ANY(ARRAY(SELECT id FROM next))
     ${after ? 'AND (e.series, e.number, l.line_no) > ($5::text, $6::int, $7::int)' : ''}
   ORDER BY e.series, e.number, l.line_no
   LIMIT $4::int`;
const LINES_FIRST_PAGE = linePageSql(false);
const LINES_PAGE_AFTER = linePageSql(true);

interface VoucherKey {
  series: string;
  number: number;
  line: number;
}

/** Collects one page of records and encodes it to CP437 in one go. */
class SieOutput {
  private pending: string[] = [];
  constructor(private readonly sink: ByteSink) {}

  record(label: string, ...fields: string[]): void {
    this.pending.push(sieRecord(label, ...fields));
  }

  raw(line: string): void {
    this.pending.push(`${line}\r\n`);
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    this.sink.write(encodeSie(this.pending.join('')));
    this.pending = [];
    await this.sink.ready();
  }
}

/** Years an import still pending has created are not the company's yet (ledger/visibility.ts). */
const yearSelect = Prisma.sql`SELECT id, start_date::text AS start_date, end_date::text AS end_date FROM fiscal_years WHERE import_id IS NULL`;

export async function exportSie(ctx: OperationContext, companyId: string, fiscalYearId: string): Promise<BinaryBody> {
  requireScope(ctx, 'companies:read');
  let filename = '';
  const stream = await streamFromSnapshot(ctx, async (tx) => {
    const [year] = await tx.db.$queryRaw<YearRow[]>`${yearSelect} AND company_id = ${companyId}::uuid AND id = ${fiscalYearId}::uuid`;
    if (!year) throw fiscalYearNotFound();
    const [previous] = await tx.db.$queryRaw<YearRow[]>`
      ${yearSelect} AND company_id = ${companyId}::uuid AND end_date = ${addDays(year.start_date, -1)}::date`;
    const company = await companyHeading(tx, companyId);
    filename = `sie4-${company.orgNumber.replace(/[^0-9A-Za-z-]/g, '')}-${year.start_date}.se`;
    // The previous years: comparative figures an import brought (the earlier program's own, which
    // our books hold no vouchers for) come first; else the company's previous fiscal year. Older
    // comparative years follow as -2, -3, … while they run back without a gap (docs/sie.md).
    const years: { index: number; year: YearRow; comparative: ComparativeYear | null }[] = [{ index: 0, year, comparative: null }];
    for (let index = -1, end = addDays(year.start_date, -1); ; index -= 1) {
      const comparative = await comparativeYearEnding(tx, companyId, end);
      if (comparative) years.push({ index, year: { id: '', start_date: comparative.start, end_date: comparative.end }, comparative });
      else if (index === -1 && previous) years.push({ index, year: previous, comparative: null });
      else break;
      end = addDays((years.at(-1) as (typeof years)[number]).year.start_date, -1);
    }
    return async (sink) => {
      const out = new SieOutput(sink);
      out.record('FLAGGA', '0');
      out.record('FORMAT', 'PC8');
      out.record('SIETYP', '4');
      out.record('PROGRAM', sieText(SIE_PROGRAM), sieText(API_VERSION));
      out.record('GEN', sieDate(isoToday(ctx.services.now())));
      out.record('FNAMN', sieText(company.name));
      out.record('ORGNR', sieText(company.orgNumber));
      for (const { index, year: each } of years) out.record('RAR', String(index), sieDate(each.start_date), sieDate(each.end_date));
      out.record('VALUTA', 'SEK');

      const accountPage = (after: string | null, limit: number) =>
        tx.db.$queryRaw<{ number: string; name: string }[]>`
          SELECT number, name FROM accounts
           WHERE company_id = ${companyId}::uuid AND import_id IS NULL ${after === null ? Prisma.empty : Prisma.sql`AND number > ${after}`}
           ORDER BY number LIMIT ${limit}`;
      for await (const page of keysetPages(accountPage, (account) => account.number)) {
        for (const account of page) {
          out.record('KONTO', account.number, sieText(account.name));
          out.record('KTYP', account.number, sieAccountType(account.number));
        }
        await out.flush();
      }

      // SIE 4B #DIM/#UNDERDIM then #OBJEKT, after the chart. Creation order puts a super-dimension
      // before its sub-dimensions (a parent must exist first), as a reader needs.
      const dimensions = await tx.db.$queryRaw<{ number: number; name: string; parent_number: number | null }[]>`
        SELECT number, name, parent_number FROM dimensions WHERE company_id = ${companyId}::uuid AND import_id IS NULL
         ORDER BY parent_number IS NOT NULL, created_at, number`;
      for (const dimension of dimensions) {
        if (dimension.parent_number === null) out.record('DIM', String(dimension.number), sieText(dimension.name));
        else out.record('UNDERDIM', String(dimension.number), sieText(dimension.name), String(dimension.parent_number));
      }
      const objectPage = (after: { dimension: number; code: string } | null, limit: number) =>
        tx.db.$queryRaw<{ dimension: number; code: string; name: string }[]>`
          SELECT dimension_number AS dimension, code, name FROM dimension_objects
           WHERE company_id = ${companyId}::uuid AND import_id IS NULL
             ${after === null ? Prisma.empty : Prisma.sql`AND (dimension_number, code COLLATE "C") > (${after.dimension}::integer, ${after.code} COLLATE "C")`}
           ORDER BY dimension_number, code COLLATE "C" LIMIT ${limit}`;
      for await (const page of keysetPages(objectPage, (object) => ({ dimension: object.dimension, code: object.code }))) {
        for (const object of page) out.record('OBJEKT', String(object.dimension), sieText(object.code), sieText(object.name));
        await out.flush();
      }

      // Balances are aggregated in SQL (reports/balances.ts), the same sums the reports print.
      for (const { index, year: each, comparative } of years) {
        if (comparative) {
          for (const balance of comparative.balances) out.record(balance.kind, String(index), balance.account, sieAmount(balance.amount));
          await out.flush();
          continue;
        }
        const period: ReportPeriod = { from: each.start_date, to: each.end_date, fiscal_year: each };
        for (const row of await accountBalances(tx, companyId, period)) {
          if (isBalanceSheetAccount(row.account)) {
            out.record('IB', String(index), row.account, sieAmount(row.opening));
            out.record('UB', String(index), row.account, sieAmount(closingOf(row)));
          } else {
            out.record('RES', String(index), row.account, sieAmount(closingOf(row)));
          }
        }
        await out.flush();
      }

      // Keyset pages of REPORT_PAGE_SIZE lines, each line formatted as it arrives and none kept
      // (eachRow): a page of row objects held until the page ended was what V8 promoted (issue 30).
      // (series, number) is unique within a fiscal year, so (series, number, line) orders every line once.
      let current: string | null = null;
      const linePage = (after: VoucherKey | null, limit: number, onRow: (row: VoucherLine) => void) =>
        eachRow<VoucherLine>(
          tx,
          after === null ? LINES_FIRST_PAGE : LINES_PAGE_AFTER,
          [companyId, year.id, ENTRIES_PER_PAGE(limit), limit, ...(after === null ? [] : [after.series, after.number, after.line])],
          onRow,
        );
      await keysetRows(
        linePage,
        (row): VoucherKey => ({ series: row.series, number: row.number, line: row.line_no }),
        (row) => {
          const voucher = `${row.series} ${row.number}`;
          if (voucher !== current) {
            if (current !== null) out.raw('}');
            current = voucher;
            out.record('VER', row.series, String(row.number), sieDate(row.date), sieText(row.description), sieDate(row.registered));
            out.raw('{');
          }
          const amount = sieAmount(row.debit - row.credit);
          const text = row.line_description === null ? [] : ['""', sieText(row.line_description)];
          out.raw(`   ${sieRecord('TRANS', row.account, sieObjectList(row.objects), amount, ...text).trimEnd()}`);
        },
        () => out.flush(),
      );
      if (current !== null) out.raw('}');
      await out.flush();
    };
  });
  return { contentType: SIE_CONTENT_TYPE, filename, stream };
}
