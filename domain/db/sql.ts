import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import type { StatementListener } from './statement-log.ts';

/**
 * The database driver without Prisma, for the statements on every request's path (admission,
 * plain reads): Prisma's client pipeline cost about 60 µs of CPU per statement here, more than the
 * driver and the database together. Prisma's model API still runs most writes (`ctx.db`).
 */
export interface SqlClient {
  /**
   * Runs one statement and returns its rows as objects: on the pool (outside any transaction), or
   * on one transaction's connection (SqlDriver.on). `text` is a constant (values go in `params`):
   * on PostgreSQL it becomes a prepared statement.
   */
  query<T>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Runs one statement and hands each row to `onRow` as it is parsed, keeping none; resolves with
   * the number of rows. For long reads (the SIE export's pages): node-postgres accumulating a
   * page's rows in its result kept them alive until V8 promoted them, and a 1,000,000-line read
   * filled the old generation with dead rows (issue 30; docs/performance.md). An error thrown by
   * `onRow` rejects once the statement has ended.
   */
  eachRow<T>(text: string, params: readonly unknown[], onRow: (row: T) => void): Promise<number>;
}

/**
 * Both engines parse these alike (their defaults differ): int8 as bigint, as Prisma returns it
 * (money is öre in bigint); date as its 'YYYY-MM-DD' text, never a Date shifted by a time zone;
 * numeric as text, never a float. Other types keep the drivers' common parsing (timestamptz →
 * Date, json → value, arrays → arrays).
 */
export const PARSERS: Readonly<Record<number, (text: string) => unknown>> = {
  20: (text) => BigInt(text), // int8
  1082: (text) => text, // date
  1700: (text) => text, // numeric
};

/**
 * PGlite's own bytea codecs build and parse the hex text one byte at a time in JavaScript: about
 * 60 ms per 256 KiB stored chunk each way, so a 20 MiB upload held the embedded database's one
 * connection for 8 s and concurrent uploads timed out waiting for it (503). So the embedded engine
 * gets these instead (measured alone, 20 MiB in 256 KiB chunks): a bytea parameter goes as it is,
 * which PGlite sends in the binary format (written in 0.43 s instead of 7.6 s, and no 512 KiB hex
 * string per chunk left for a full collection), and a bytea result is parsed by Node's native hex
 * codec (read in 0.45 s instead of 4.2 s). node-postgres does both natively already.
 */
const byteaFromHex = (text: string): Uint8Array => {
  const bytes = Buffer.from(text.slice(2), 'hex'); // '\x' then two hex digits per byte
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};
/** PGlite's serializer type says string, but a returned byte view is sent as a binary parameter (its bind message). */
const byteaAsBinary = ((value: unknown): Uint8Array => {
  if (!(value instanceof Uint8Array)) throw new TypeError('A bytea parameter must be a Uint8Array');
  return value;
}) as unknown as (value: unknown) => string;

/** The embedded engine's type options: PARSERS, and the bytea codecs above. */
export const PGLITE_TYPE_OPTIONS = {
  parsers: { ...PARSERS, 17: byteaFromHex },
  serializers: { 17: byteaAsBinary },
} as const;

/**
 * Every PostgreSQL connection's limits. Getting a connection (a free one from the pool, or a new
 * one) gives up after CONNECT_TIMEOUT_MS, so a request meets a database that does not answer
 * with a prompt 503 (the error is classified as unavailable) instead of waiting without end.
 * TCP keepalive lets the system notice a connection whose server vanished without closing it.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const CONNECTION_LIMITS = { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true } as const;

/**
 * The privileged pool, shared by Prisma's adapter (which passes its own parsers with every query)
 * and pgSql() (which uses these, set once on the pool: a per-query config object is cloned by pg
 * on every call).
 */
export function createPgPool(connectionString: string, max: number, waits: DatabaseWaits = {}): pg.Pool {
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      PARSERS[oid] ?? (pg.types.getTypeParser as (oid: number, format?: string) => (value: string) => unknown)(oid, format),
  };
  const pool = new pg.Pool({
    connectionString,
    max,
    ...CONNECTION_LIMITS,
    ...(waits.statementTimeoutMs !== undefined && { statement_timeout: waits.statementTimeoutMs }),
    types: types as pg.CustomTypesConfig,
  });
  const { deadlineMs } = waits;
  if (deadlineMs !== undefined) pool.on('connect', (client) => discardAfterDeadline(client, deadlineMs));
  // An idle connection that dies (a database restart, an administrator's termination) is dropped
  // by the pool and the next query opens a fresh one. Unheard, pg's 'error' event would crash the
  // process; Prisma listens only while connected, so the pool keeps a listener of its own.
  pool.on('error', () => {});
  return pool;
}

/** The bounds of a pool's waits (issue 28); each optional. */
export interface DatabaseWaits {
  /** Sent as the sessions' statement_timeout: the server cancels a statement running longer. */
  statementTimeoutMs?: number;
  /** The client's own bound on one statement's answer: past it the connection is discarded. */
  deadlineMs?: number;
}

/** The message of a statement cut by the client's deadline (classified as unavailable: domain/db/errors.ts). */
export const DEADLINE_MESSAGE = 'Database deadline exceeded: no answer in time, connection discarded';

/**
 * A server that stops answering with its connections open (SIGSTOP, a partition without a reset)
 * leaves a statement waiting for ever: the kernel still acknowledges, so TCP keepalive sees
 * nothing, and the server's statement_timeout cannot fire in a frozen process. So every statement
 * on the connection gets a client-side deadline; past it the socket is destroyed, the statement
 * fails with DEADLINE_MESSAGE (a 503 for a request), and the pool drops the connection (no longer
 * queryable) instead of handing it out with a statement still in it. node-postgres's own
 * query_timeout rejects the call but keeps the connection, busy, in the pool.
 */
function discardAfterDeadline(client: pg.PoolClient, deadlineMs: number): void {
  // Untyped on purpose: query() has a dozen overloads (promise, callback, submittable) and this
  // wrapper only passes its arguments through, adding a timer around the call.
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const socket = (client as unknown as { connection: { stream: { destroy(error?: Error): void } } }).connection.stream;
  // The statements on it get the error; without a listener, an error on a connection checked out
  // of the pool (whose own listener is off meanwhile) would be an uncaught 'error' event.
  client.on('error', () => {});
  const watch = (): (() => void) => {
    const timer = setTimeout(() => socket.destroy(new Error(DEADLINE_MESSAGE)), deadlineMs);
    return () => clearTimeout(timer);
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const last = args.at(-1);
    if (typeof last === 'function') {
      const done = watch();
      args[args.length - 1] = (...results: unknown[]) => {
        done();
        return (last as (...values: unknown[]) => unknown)(...results);
      };
      return query(...args);
    }
    const first = args[0] as { submit?: unknown } | undefined;
    if (typeof first?.submit === 'function') return query(...args); // a Submittable (cursor, stream) paces itself
    const done = watch();
    const result = query(...args);
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  };
}

// The request path sends a handful of distinct statements; anything beyond this is unprepared.
const MAX_PREPARED = 200;

/** Something pg sends statements on: the pool (any free connection) or one checked-out connection. */
interface PgQueryable {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/** The bare driver of one engine: its pool, and the same statements on one connection of it. */
export interface SqlDriver<Connection> extends SqlClient {
  /**
   * The same statements sent on `connection` (an open transaction's), parsed the same way: a
   * statement's text and its rows do not depend on whether it runs inside a transaction.
   */
  on(connection: Connection): SqlClient;
}

/**
 * Every statement is prepared once per connection (named), so PostgreSQL parses and plans it once
 * instead of on every request: for the companies list that more than doubled what the database
 * could serve. Texts must therefore be constants with $n parameters, never values spliced in.
 * The names are shared by the pool and every connection a transaction holds (pg remembers per
 * connection which names it has prepared there).
 * `prepare: false` sends every statement unnamed: behind a transaction-mode pooler consecutive
 * statements of one pool connection reach different server connections, where a named statement
 * is missing ("does not exist") or already taken ("already exists").
 */
export function pgSql(pool: pg.Pool, onStatement?: StatementListener, options: { prepare?: boolean } = {}): SqlDriver<pg.PoolClient> {
  const names = new Map<string, string>();
  const limit = options.prepare === false ? 0 : MAX_PREPARED;
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < limit) {
      name = `sql_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  const on = (connection: PgQueryable): SqlClient => ({
    async query<T>(text: string, params: readonly unknown[] = []) {
      onStatement?.(text);
      const name = nameOf(text);
      const result = name ? await connection.query({ name, text, values: params as unknown[] }) : await connection.query(text, params as unknown[]);
      return result.rows as T[];
    },
    async eachRow<T>(text: string, params: readonly unknown[], onRow: (row: T) => void) {
      onStatement?.(text);
      const name = nameOf(text);
      // A pg.Query with a 'row' listener and no callback emits each row and accumulates none.
      const query = new pg.Query({ ...(name && { name }), text, values: params as unknown[] });
      const submit = (client: PgSubmitter) =>
        new Promise<number>((resolve, reject) => {
          let count = 0;
          let failed: unknown;
          query.on('row', (row: T) => {
            count += 1;
            if (failed !== undefined) return;
            try {
              onRow(row);
            } catch (error) {
              failed = error;
            }
          });
          query.on('error', reject);
          query.on('end', () => (failed === undefined ? resolve(count) : reject(failed)));
          client.query(query);
        });
      if (!(connection instanceof pg.Pool)) return submit(connection as unknown as PgSubmitter);
      // The pool takes no Query object: one of its connections does.
      const client = await connection.connect();
      try {
        return await submit(client as unknown as PgSubmitter);
      } finally {
        client.release();
      }
    },
  });
  return { ...on(pool), on };
}

/** A connection that takes a pg.Query (a submittable) and runs it. */
interface PgSubmitter {
  query(query: pg.Query): unknown;
}

/** Something PGlite sends statements on: the instance, or one of its open transactions. */
type PgliteQueryable = Pick<PGlite, 'query'> | Pick<Transaction, 'query'>;

/**
 * PGlite has one connection: outside a transaction its query waits while a Prisma transaction
 * holds it, so a statement inside one goes to that transaction's object instead (`on`). Both use
 * the instance's parsers (PARSERS, set when client.ts opens it): passed per query, PGlite copies
 * its whole parser table into a new object on every call.
 */
export function pgliteSql(pglite: PGlite, onStatement?: StatementListener): SqlDriver<Transaction> {
  const on = (connection: PgliteQueryable): SqlClient => ({
    async query<T>(text: string, params: readonly unknown[] = []) {
      onStatement?.(text);
      return (await connection.query<T>(text, params as unknown[])).rows;
    },
    // PGlite answers a statement whole: its rows arrive together however they are handed on.
    async eachRow<T>(text: string, params: readonly unknown[], onRow: (row: T) => void) {
      onStatement?.(text);
      const { rows } = await connection.query<T>(text, params as unknown[]);
      for (const row of rows) onRow(row);
      return rows.length;
    },
  });
  return { ...on(pglite), on };
}
