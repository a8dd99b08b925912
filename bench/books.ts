/**
 * Committed journal lines for the report benchmarks (report.ts, ledger.ts), generated with SQL:
 * drafts by generate_series, then committed by UPDATEs through the ledger's guard, the way every
 * path commits (the guard checks the balance, writes the ledger key onto the lines and counts the
 * company's committed debits). Committed in batches: one UPDATE committing every entry of a 1M-line
 * year rewrites the company row once per entry inside one transaction, and each rewrite walks the
 * chain of the row's earlier versions, so that UPDATE grows with the square of the entries.
 */
import pg from 'pg';
import { buildApp } from '../cli/build-app.ts';
import { loadConfig } from '../domain/kernel/config.ts';
import { createLogger } from '../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY } from '../test/helpers/db.ts';
import { createServices } from '../domain/bootstrap.ts';
import { insertFiscalYear } from '../domain/ledger/fiscal-years.ts';
import { makeTenant } from '../test/helpers/factories.ts';

export const LINES_PER_ENTRY = 4;
export const BOOKS_YEAR = { start: '2026-01-01', end: '2026-12-31' };
const ENTRIES_PER_COMMIT = 2_500;

export interface Books {
  companyId: string;
  key: string;
  fiscalYearId: string;
}

/** A company whose fiscal year holds `lines` committed lines in series A, numbered by date. */
export async function generateBooks(services: Awaited<ReturnType<typeof createServices>>, pool: pg.Pool, lines: number): Promise<Books> {
  const tenant = await makeTenant(services.database.prisma);
  const year = await insertFiscalYear(services.database.prisma, tenant.companyId, BOOKS_YEAR.start, BOOKS_YEAR.end);
  const entries = lines / LINES_PER_ENTRY;
  const started = performance.now();
  // The drafts in a statement of their own, then their statistics, then the lines: each line's
  // INSERT looks its entry up (the foreign key, journal_lines_guard), and with drafts and lines in
  // one statement, planned while journal_entries looked empty, that statement grew with the square
  // of the entries (200,000 lines: 203 s; now 2 s and 10 s at a load of 9, and a 1M-line year
  // takes about 2.5 minutes in all, mostly the commits).
  await pool.query(
    `INSERT INTO journal_entries (company_id, date, description)
     SELECT $1::uuid, $2::date + (g % 365), 'Bench entry ' || g FROM generate_series(1, $3::int) g`,
    [tenant.companyId, BOOKS_YEAR.start, entries],
  );
  await pool.query('ANALYZE journal_entries');
  // Each entry: two debits (a cost and its input VAT) and two credits (bank, supplier), balanced by construction.
  await pool.query(
    `WITH accounts AS (
       SELECT array_agg(id ORDER BY number) FILTER (WHERE number IN ('4010','5010','6110','6570')) AS costs,
              max(id::text) FILTER (WHERE number = '2641')::uuid AS vat,
              max(id::text) FILTER (WHERE number = '1930')::uuid AS bank,
              max(id::text) FILTER (WHERE number = '2440')::uuid AS supplier
         FROM accounts WHERE company_id = $1::uuid)
     INSERT INTO journal_lines (company_id, entry_id, line_no, account_id, debit, credit)
     SELECT $1::uuid, d.id, k,
            CASE k WHEN 1 THEN a.costs[1 + abs(hashtext(d.id::text)) % 4] WHEN 2 THEN a.vat WHEN 3 THEN a.bank ELSE a.supplier END,
            CASE k WHEN 1 THEN 4 * amount WHEN 2 THEN amount ELSE 0 END,
            CASE k WHEN 3 THEN 3 * amount WHEN 4 THEN 2 * amount ELSE 0 END
       FROM journal_entries d CROSS JOIN accounts a
            CROSS JOIN LATERAL (SELECT 100 + abs(hashtext(d.id::text || 'x')) % 100000 AS amount) m
            CROSS JOIN generate_series(1, ${LINES_PER_ENTRY}) k
      WHERE d.company_id = $1::uuid`,
    [tenant.companyId],
  );
  // Fresh statistics first: planned on an empty table's, the committing UPDATE nests loops over seq scans.
  await pool.query('ANALYZE journal_entries; ANALYZE journal_lines');
  // Numbers by (date, id) fixed once, then committed a batch at a time in that order (one
  // connection: the numbering is a temporary table).
  const client = await pool.connect();
  try {
    await client.query(
      `CREATE TEMP TABLE bench_numbering AS
         SELECT j.id, p.id AS period_id, row_number() OVER (ORDER BY j.date, j.id)::int AS rn
           FROM journal_entries j JOIN periods p ON p.company_id = j.company_id AND j.date BETWEEN p.start_date AND p.end_date
          WHERE j.company_id = '${tenant.companyId}'::uuid AND j.status = 'draft'`,
    );
    await client.query('CREATE INDEX ON bench_numbering (rn)');
    await client.query('ANALYZE bench_numbering');
    for (let first = 1; first <= entries; first += ENTRIES_PER_COMMIT) {
      await client.query(
        `UPDATE journal_entries e
            SET status = 'committed', number = n.rn, fiscal_year_id = $2::uuid, period_id = n.period_id, committed_at = now()
           FROM bench_numbering n
          WHERE e.company_id = $1::uuid AND e.id = n.id AND n.rn BETWEEN $3::int AND $4::int`,
        [tenant.companyId, year.id, first, first + ENTRIES_PER_COMMIT - 1],
      );
    }
    await client.query('DROP TABLE bench_numbering');
  } finally {
    client.release();
  }
  await pool.query(`INSERT INTO journal_series_counters (company_id, fiscal_year_id, series, last_number) VALUES ($1::uuid, $2::uuid, 'A', $3::int)`, [
    tenant.companyId,
    year.id,
    entries,
  ]);
  await pool.query('VACUUM ANALYZE journal_entries');
  await pool.query('VACUUM ANALYZE journal_lines');
  console.log(`  generated ${lines.toLocaleString('en')} committed lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { companyId: tenant.companyId, key: tenant.key, fiscalYearId: year.id };
}

/** A PostgreSQL database of the bench's own, the app's services on it, a bare pool for bulk writes, and the HTTP app. */
export interface BooksBench {
  services: Awaited<ReturnType<typeof createServices>>;
  pool: pg.Pool;
  app: ReturnType<typeof buildApp>;
  /** The database's connection strings, for a server process of its own (sie-memory.ts). */
  urls: { DATABASE_URL: string; DATABASE_ANON_URL: string; ENCRYPTION_KEY: string };
  /** Closes the pool and the services and drops the database. */
  close(): Promise<void>;
}

export async function openBooksBench(rateLimitPerMinute: number): Promise<BooksBench> {
  const db = await createPostgresDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    DATABASE_ANON_URL: db.anonUrl,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute),
  });
  const services = await createServices(config, { logger: createLogger('warn') });
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  return {
    services,
    pool,
    app: buildApp(services),
    urls: { DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY },
    close: async () => {
      await pool.end();
      await services.database.close();
      await db.drop();
    },
  };
}
