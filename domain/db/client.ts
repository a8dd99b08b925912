import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { join } from 'node:path';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { copyTemplate, templateDir } from './data-template.ts';
import type { PgliteAssets } from './pglite-assets.ts';
import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import { basename } from 'node:path';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { PrismaClient, type Prisma } from './generated/client.ts';
import { observeStatements, type StatementListener } from './statement-log.ts';
import { createPgPool, PGLITE_TYPE_OPTIONS, pgliteSql, pgSql, type DatabaseWaits, type SqlClient, type SqlDriver } from './sql.ts';
import { joinTransaction, linkable } from './transaction-link.ts';

/** A client that can run queries: the root client or an open interactive transaction. */
export type Db = PrismaClient | Prisma.TransactionClient;
export type { Prisma };
/** Tagged SQL fragments for composing parameterised raw queries (values are always bound, never spliced). */
export { Prisma as PrismaSql } from './generated/client.ts';
/** The row types Prisma generates from prisma/schema.prisma, one per model (`Models.WebhookModel`, …). */
export type * as Models from './generated/models.ts';

/**
 * The service's database handles. `prisma` is the privileged identity used by authenticated
 * routes and workers; `asAnon` runs a callback as the least-privilege `api_anon` role that
 * public routes use (DESIGN.md §4).
 */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly prisma: PrismaClient;
  /** The same privileged identity through the bare driver: the request path's hot statements. */
  readonly sql: SqlClient;
  /**
   * The bare driver where `db` is: the pool of a root client (privileged, or `api_anon` on
   * PostgreSQL), or the connection of the interactive transaction `db` belongs to (so a statement
   * has one text inside and outside transactions, and its rows parse the same both times).
   * Throws for anything else rather than guess a connection.
   */
  sqlFor(db: Db): SqlClient;
  asAnon<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * The same least-privilege identity through the bare driver, without Prisma: api_anon's pool on
   * PostgreSQL, a role switch in a transaction of PGlite's one connection (operations declared
   * `database: 'bare'`; health at start answers without waiting for Prisma's query compiler).
   */
  anonSql<T>(fn: (sql: SqlClient) => Promise<T>): Promise<T>;
  /** The embedded engine, when there is one (the migrator and tests use it directly). */
  readonly pglite?: PGlite;
  /** The embedded data directory's lock, held while the database is open (not for `memory`). */
  readonly lock?: DataDirLock;
  close(): Promise<void>;
}

/** Interactive transactions wait for PGlite's single connection, so allow generous queueing. */
export const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 60_000 } as const;

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; absent means the embedded PGlite database. */
  databaseUrl?: string | undefined;
  /** Connection string for the api_anon role (required with databaseUrl). */
  anonDatabaseUrl?: string | undefined;
  /** Where PGlite keeps its files; `memory` keeps them in memory (tests). */
  dataDir: string | 'memory';
  /** Connections in the privileged pool. */
  poolSize?: number;
  /** How this process is named to a second one refused the embedded data directory, e.g. `npm start`. */
  processName?: string;
  /** Told every statement the privileged client sends (tests count round trips with it). */
  onStatement?: StatementListener | undefined;
  /** False when databaseUrl goes through a transaction-mode pooler: the bare driver prepares nothing. */
  preparedStatements?: boolean;
  /** Statement timeout and client deadline of both pools (PostgreSQL). */
  waits?: DatabaseWaits;
  /** Told how a new embedded database was made: copied from the build's migrated template, or by initdb (none for this set of migrations). */
  onCreated?: (how: 'template' | 'initdb', template: string) => void;
  /** The migrated template a new embedded database is copied from; by default the build's for these migrations. */
  template?: string;
  /** PGlite's WebAssembly module and file bundle, already being read and compiled (preloadPgliteAssets); by default PGlite reads them itself. */
  pgliteAssets?: PgliteAssets | undefined;
}

/**
 * Production behaviour whatever NODE_ENV says: with any other error format Prisma captures a
 * call-site stack (`new Error()`) on every query, about 15 % of a read's CPU. Our errors reach
 * callers through the error catalogue, never as Prisma's rendered messages.
 */
function privilegedClient(adapter: SqlDriverAdapterFactory, onStatement: StatementListener | undefined): PrismaClient {
  return new PrismaClient({ adapter: linkable(onStatement ? observeStatements(adapter, onStatement) : adapter), errorFormat: 'minimal' });
}

/**
 * Database.sqlFor: the root clients' pools by identity, transactions joined on first use (and
 * remembered). A transaction opened on the bare driver itself (BEGIN on `pool.connect()`'s client,
 * or `pglite.transaction()`) needs only an entry here, its context's `db` mapped to
 * `driver.on(connection)`: every readRows statement then runs in it unchanged.
 */
function bareDriverFor<Connection>(roots: (db: Db) => SqlClient | undefined, driver: SqlDriver<Connection>): (db: Db) => SqlClient {
  const joined = new WeakMap<Db, SqlClient>();
  return (db) => {
    const root = roots(db);
    if (root) return root;
    if (typeof (db as { $executeRawUnsafe?: unknown }).$executeRawUnsafe !== 'function') throw new Error('sqlFor: not a database client');
    let sql = joined.get(db);
    if (!sql) joined.set(db, (sql = joinTransaction(db, driver.on)));
    return sql;
  };
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  return openPglite(options.dataDir, options.processName ?? `node ${basename(process.argv[1] ?? 'process')}`, options);
}

function openPostgres(url: string, options: OpenDatabaseOptions): Database {
  if (!options.anonDatabaseUrl) throw new Error('anonDatabaseUrl is required with a PostgreSQL databaseUrl');
  // One pool for both: Prisma and the bare driver share the privileged connections.
  const pool = createPgPool(url, options.poolSize ?? 10, options.waits);
  const prisma = privilegedClient(new PrismaPg(pool), options.onStatement);
  const prepare = options.preparedStatements !== false;
  const sql = pgSql(pool, options.onStatement, { prepare });
  // api_anon's pool parses like the privileged one, so the bare driver reads alike as either identity.
  const anonPool = createPgPool(options.anonDatabaseUrl, 4, options.waits);
  const anon = new PrismaClient({ adapter: linkable(new PrismaPg(anonPool)), errorFormat: 'minimal' });
  const anonSql = pgSql(anonPool, undefined, { prepare });
  return {
    kind: 'postgres',
    prisma,
    sql,
    sqlFor: bareDriverFor((db) => (db === prisma ? sql : db === anon ? anonSql : undefined), sql),
    asAnon: (fn) => fn(anon),
    anonSql: (fn) => fn(anonSql),
    close: async () => {
      await Promise.all([prisma.$disconnect(), anon.$disconnect()]);
      await Promise.all([pool.end(), anonPool.end()]);
    },
  };
}

/** Where the embedded database of a data directory lives (PGlite's own PostgreSQL data directory). */
export const embeddedDatabaseDir = (dataDir: string): string => join(dataDir, 'pglite');

/** Whether a data directory already holds an embedded database: PostgreSQL writes PG_VERSION when it creates one. */
export const embeddedDatabaseExists = (dataDir: string): boolean => existsSync(join(embeddedDatabaseDir(dataDir), 'PG_VERSION'));

/**
 * A first start: the build's migrated template copied in (issue 30: no initdb), else an empty
 * folder for PGlite's initdb, as before. A folder left without PG_VERSION (an interrupted initdb)
 * is not a database; only an empty one is replaced by the template, anything else is left to PGlite.
 */
function createEmbeddedDatabase(dir: string, template: string, onCreated: OpenDatabaseOptions['onCreated']): void {
  const empty = !existsSync(dir) || readdirSync(dir).length === 0;
  if (empty) {
    rmSync(dir, { recursive: true, force: true });
    if (copyTemplate(dir, template)) {
      onCreated?.('template', template);
      return;
    }
  }
  mkdirSync(dir, { recursive: true });
  onCreated?.('initdb', template);
}

async function openPglite(dataDir: string, processName: string, { onStatement, onCreated, template, pgliteAssets }: OpenDatabaseOptions): Promise<Database> {
  let pglite: PGlite;
  let lock: DataDirLock | undefined;
  // The bare driver's parsers and bytea codecs (sql.ts), set once; Prisma's adapter passes its own parsers with each query.
  const options = {
    parsers: { ...PGLITE_TYPE_OPTIONS.parsers },
    serializers: { ...PGLITE_TYPE_OPTIONS.serializers },
    ...(pgliteAssets && { pgliteWasmModule: await pgliteAssets.wasmModule, fsBundle: await pgliteAssets.fsBundle }),
  };
  if (dataDir === 'memory') {
    pglite = new PGlite(options);
  } else {
    const dir = embeddedDatabaseDir(dataDir);
    mkdirSync(dataDir, { recursive: true });
    // Before PGlite touches the files: a second process must never open them (DataDirLockedError).
    lock = lockDataDir(dataDir, processName);
    try {
      if (!embeddedDatabaseExists(dataDir)) createEmbeddedDatabase(dir, template ?? templateDir(), onCreated);
    } catch (error) {
      lock.release();
      throw error;
    }
    pglite = new PGlite(dir, options);
  }
  try {
    await pglite.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  // Made on first use: its constructor reads the whole data model (some 30 ms), and a start's first
  // health answer needs only the bare driver (issue 30).
  let made: PrismaClient | undefined;
  const prismaClient = (): PrismaClient => (made ??= privilegedClient(new PrismaPGlite(pglite), onStatement));
  const sql = pgliteSql(pglite, onStatement);
  return {
    kind: 'pglite',
    get prisma() {
      return prismaClient();
    },
    sql,
    sqlFor: bareDriverFor((db) => (made !== undefined && db === made ? sql : undefined), sql),
    pglite,
    ...(lock && { lock }),
    // PGlite has one connection, so the anonymous identity is a role switch scoped to a transaction.
    asAnon: (fn) =>
      prismaClient().$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET LOCAL ROLE api_anon');
        return fn(tx);
      }, TRANSACTION_OPTIONS),
    anonSql: (fn) =>
      pglite.transaction(async (tx) => {
        const anonSql = sql.on(tx);
        await anonSql.query('SET LOCAL ROLE api_anon');
        return fn(anonSql);
      }),
    close: async () => {
      await made?.$disconnect();
      await pglite.close();
      lock?.release();
    },
  };
}
