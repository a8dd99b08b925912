/**
 * Reports over 1,000,000 committed journal lines on PostgreSQL (and 100,000 for linearity):
 *  - getAccountBalances through the real HTTP app beside a raw SQL GROUP BY over the same rows;
 *  - exportSie through the real HTTP app (streamed, read to the end) beside the same GROUP BY and
 *    beside a raw keyset read of the same lines, with the peak RSS growth while it streams.
 * The lines are generated with SQL (generate_series), born as drafts and committed by UPDATEs
 * through the ledger's guard (books.ts). `BENCH_REPORT_LINES` changes the large size.
 */
import type pg from 'pg';
import type { createServices } from '../domain/bootstrap.ts';
import type { buildApp } from '../cli/build-app.ts';
import { BOOKS_YEAR, type Books, generateBooks, openBooksBench } from './books.ts';

const LARGE = Number(process.env.BENCH_REPORT_LINES ?? 1_000_000);
const SMALL = Math.round(LARGE / 10);
const RSS_LIMIT_MB = 64;
const YEAR = BOOKS_YEAR;

type Services = Awaited<ReturnType<typeof createServices>>;

const seconds = async <T>(run: () => Promise<T>): Promise<[number, T]> => {
  const start = performance.now();
  const result = await run();
  return [(performance.now() - start) / 1000, result];
};

const GROUP_BY = `
  SELECT l.account_id, sum(l.debit)::bigint AS debit, sum(l.credit)::bigint AS credit
    FROM journal_lines l JOIN journal_entries e ON e.company_id = l.company_id AND e.id = l.entry_id
   WHERE l.company_id = $1::uuid AND e.status = 'committed' AND e.date BETWEEN $2::date AND $3::date
   GROUP BY l.account_id`;

/** The same lines read to the client by a raw keyset walk of the same SQL shape (pages of 1000): the floor any export pays. */
async function rawKeysetRead(pool: pg.Pool, books: Books): Promise<number> {
  let rows = 0;
  let after: [string, number, number] | null = null;
  for (;;) {
    const page: pg.QueryResult<{ series: string; number: number; line_no: number }> = await pool.query(
      `WITH next AS (
         SELECT id, series, number, date, description FROM journal_entries
          WHERE company_id = $1::uuid AND fiscal_year_id = $2::uuid AND status = 'committed'
            AND ($3::text IS NULL OR (series, number) >= ($3, $4::int))
          ORDER BY series, number LIMIT 501)
       SELECT e.series, e.number, e.date, e.description, l.line_no, a.number AS account, l.debit, l.credit
         FROM journal_lines l JOIN next e ON e.id = l.entry_id JOIN accounts a ON a.company_id = l.company_id AND a.id = l.account_id
        WHERE l.company_id = $1::uuid AND l.entry_id = ANY(ARRAY(SELECT id FROM next))
          AND ($3::text IS NULL OR (e.series, e.number, l.line_no) > ($3, $4::int, $5::int))
        ORDER BY e.series, e.number, l.line_no LIMIT 1000`,
      [books.companyId, books.fiscalYearId, after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null],
    );
    rows += page.rows.length;
    const last = page.rows.at(-1);
    if (page.rows.length < 1000 || !last) return rows;
    after = [last.series, last.number, last.line_no];
  }
}

interface Measured {
  lines: number;
  groupBy: number;
  balances: number;
  sie: number;
  raw: number;
  sieBytes: number;
  rssGrowthMb: number;
}

async function measure(services: Services, app: ReturnType<typeof buildApp>, pool: pg.Pool, lines: number): Promise<Measured> {
  const books = await generateBooks(services, pool, lines);
  const headers = { authorization: `Bearer ${books.key}` };
  const base = `/api/v1/companies/${books.companyId}`;
  const balancesOnce = async () => {
    const response = await app.request(`${base}/reports/account-balances?from=${YEAR.start}&to=${YEAR.end}`, { headers });
    if (response.status !== 200) throw new Error(`account balances answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { data: { totals: { period_debit: number; period_credit: number } } }).data.totals;
  };
  // Warm the caches and the JIT once, then keep the best of three of each, alternating.
  await pool.query(GROUP_BY, [books.companyId, YEAR.start, YEAR.end]);
  await balancesOnce();
  const groupBy: number[] = [];
  const balances: number[] = [];
  let totals = { period_debit: 0, period_credit: 0 };
  let rawTotals = { debit: 0n, credit: 0n };
  for (let round = 0; round < 3; round += 1) {
    const [g, result] = await seconds(() => pool.query<{ debit: string; credit: string }>(GROUP_BY, [books.companyId, YEAR.start, YEAR.end]));
    groupBy.push(g);
    rawTotals = result.rows.reduce((sum, row) => ({ debit: sum.debit + BigInt(row.debit), credit: sum.credit + BigInt(row.credit) }), {
      debit: 0n,
      credit: 0n,
    });
    const [b, reported] = await seconds(balancesOnce);
    balances.push(b);
    totals = reported;
  }
  if (BigInt(totals.period_debit) !== rawTotals.debit || BigInt(totals.period_credit) !== rawTotals.credit) {
    throw new Error(`account balances ${JSON.stringify(totals)} differ from the GROUP BY ${rawTotals.debit}/${rawTotals.credit}`);
  }

  const [raw, rawRows] = await seconds(() => rawKeysetRead(pool, books));
  if (rawRows !== lines) throw new Error(`raw read saw ${rawRows} lines, expected ${lines}`);

  // SIE: streamed to the end while RSS is sampled; growth is measured from just before the request.
  (globalThis as { gc?: () => void }).gc?.();
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const [sie, sieBytes] = await seconds(async () => {
    const response = await app.request(`${base}/fiscal-years/${books.fiscalYearId}/sie`, { headers });
    if (response.status !== 200 || !response.body) throw new Error(`exportSie answered ${response.status}`);
    let bytes = 0;
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      peak = Math.max(peak, process.memoryUsage.rss());
    }
    return bytes;
  });
  clearInterval(sampler);
  return {
    lines,
    groupBy: Math.min(...groupBy),
    balances: Math.min(...balances),
    sie,
    raw,
    sieBytes,
    rssGrowthMb: (peak - rssBefore) / (1024 * 1024),
  };
}

async function main(): Promise<void> {
  const bench = await openBooksBench(100_000);
  const { services, pool, app } = bench;
  try {
    console.log(`\nReports over committed journal lines (PostgreSQL), ${SMALL.toLocaleString('en')} and ${LARGE.toLocaleString('en')} lines:`);
    const small = await measure(services, app, pool, SMALL);
    const large = await measure(services, app, pool, LARGE);
    const row = (m: Measured, name: keyof Measured) => `${(m[name] as number).toFixed(2).padStart(8)} s`;
    console.log(`\n  ${'lines'.padEnd(44)} ${SMALL.toLocaleString('en').padStart(10)} ${LARGE.toLocaleString('en').padStart(10)}   large/small`);
    for (const [label, name] of [
      ['raw SQL GROUP BY (baseline)', 'groupBy'],
      ['getAccountBalances over HTTP', 'balances'],
      ['raw keyset read of every line (pg, 1000/page)', 'raw'],
      ['exportSie over HTTP, streamed to the end', 'sie'],
    ] as const) {
      console.log(`  ${label.padEnd(44)} ${row(small, name)} ${row(large, name)}   ${(large[name] / small[name]).toFixed(1)}x`);
    }
    console.log(
      `  ratio getAccountBalances / GROUP BY: ${(small.balances / small.groupBy).toFixed(2)} (${SMALL.toLocaleString('en')}), ${(large.balances / large.groupBy).toFixed(2)} (${LARGE.toLocaleString('en')})`,
    );
    console.log(
      `  ratio exportSie / GROUP BY: ${(small.sie / small.groupBy).toFixed(1)}, ${(large.sie / large.groupBy).toFixed(1)}; exportSie / raw keyset read: ${(small.sie / small.raw).toFixed(2)}, ${(large.sie / large.raw).toFixed(2)}`,
    );
    console.log(
      `  linearity (time for ${LARGE / SMALL}x the lines): exportSie ${(large.sie / small.sie).toFixed(1)}x, getAccountBalances ${(large.balances / small.balances).toFixed(1)}x`,
    );
    console.log(
      `  SIE file: ${(large.sieBytes / 1024 / 1024).toFixed(1)} MiB; peak RSS growth during the export: ${small.rssGrowthMb.toFixed(1)} MB (${SMALL.toLocaleString('en')}), ${large.rssGrowthMb.toFixed(1)} MB (${LARGE.toLocaleString('en')}) — limit ${RSS_LIMIT_MB} MB`,
    );
    if (large.rssGrowthMb >= RSS_LIMIT_MB) {
      console.error(`  FAIL: RSS grew ${large.rssGrowthMb.toFixed(1)} MB during the SIE export (limit ${RSS_LIMIT_MB} MB)`);
      process.exitCode = 1;
    }
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await bench.close();
  }
}

await main();
