import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';
import type { SqlClient } from './sql.ts';

/**
 * Which driver connection a Prisma interactive transaction runs on, so the bare driver can send
 * its statements inside that transaction.
 *
 * Prisma gives a transaction's callback a client, never the connection; the driver adapter holds
 * it (adapter-pg: the pool client it sent BEGIN on; PGlite's adapter: PGlite's transaction
 * object), as `client` on the transaction object it hands Prisma. Every adapter is therefore
 * wrapped (linkable): a transaction it starts answers one marker statement, LINK_SQL with a
 * token, by recording its connection under that token and sending nothing to the database. Sent
 * through a transaction's own Prisma client, the marker reaches exactly that transaction's
 * adapter object — however many transactions run at once — at the cost of one pass through
 * Prisma's client per transaction (and no round trip), paid only by a transaction that uses the
 * bare driver. (An AsyncLocalStorage around $transaction would find it too, but enabling one
 * costs every promise in the process a hook on Node 20: about 3× on promise-heavy code here.)
 */

/** The marker: never reaches the database, so its text only needs to be unmistakable. */
const LINK_SQL = 'SELECT $1::text AS bare_driver_link';

/** What a transaction's connection looks like to the bare driver, and whether it is still open. */
export interface LinkedConnection {
  connection: unknown;
  /** True once Prisma commits or rolls back (a timeout included): the connection then goes back to the pool. */
  closed(): boolean;
}

/** Tokens whose link was recorded and not yet taken; each lives for one `link()` call. */
const recorded = new Map<string, LinkedConnection>();
let nextToken = 0;

const ENDINGS = new Set(['COMMIT', 'ROLLBACK']);

/** Wraps one adapter transaction: answers the marker, and notes the end of the transaction. */
function linkableTransaction<T extends object>(transaction: T): T {
  let ended = false;
  const connection: unknown = Reflect.get(transaction, 'client');
  const linked: LinkedConnection = { connection, closed: () => ended };
  return new Proxy(transaction, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'executeRaw') {
        return (query: { sql: string; args: unknown[] }) => {
          if (query.sql === LINK_SQL) {
            recorded.set(query.args[0] as string, linked);
            return Promise.resolve(0);
          }
          // PostgreSQL's adapter ends a transaction with these statements before commit()/rollback().
          if (ENDINGS.has(query.sql)) ended = true;
          return value.call(target, query);
        };
      }
      if (property === 'commit' || property === 'rollback') {
        return () => {
          ended = true;
          return value.call(target);
        };
      }
      return value.bind(target);
    },
  });
}

/** Wraps a Prisma driver adapter factory so the transactions it starts can be linked (see above). */
export function linkable(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  const wrap = <T extends object>(target: T): T => {
    // Every Prisma query outside a transaction passes here: bind each method once, not per call.
    const methods = new Map<PropertyKey, unknown>();
    return new Proxy(target, {
      get(object, property) {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        let method = methods.get(property);
        if (method === undefined) {
          if (property === 'connect') method = async () => wrap(await value.call(object));
          else if (property === 'startTransaction') method = async (...args: unknown[]) => linkableTransaction(await value.apply(object, args));
          else method = value.bind(object);
          methods.set(property, method);
        }
        return method;
      },
    });
  };
  return wrap(factory);
}

/** A Prisma client inside an interactive transaction, as far as linking needs one. */
interface TransactionClient {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/**
 * The driver connection of the interactive transaction `tx` belongs to. Throws when the client
 * is not a transaction of a linkable adapter's client (the bare driver must then not guess: a
 * statement sent elsewhere would run outside the transaction, or as another identity).
 */
export async function link(tx: TransactionClient): Promise<LinkedConnection> {
  const token = `link_${nextToken++}`;
  await tx.$executeRawUnsafe(LINK_SQL, token);
  const linked = recorded.get(token);
  recorded.delete(token);
  if (!linked) throw new Error('the bare driver can only join an interactive transaction of this service’s Prisma clients');
  if (linked.connection === null || typeof linked.connection !== 'object' || typeof (linked.connection as { query?: unknown }).query !== 'function') {
    throw new Error('the driver adapter no longer exposes its transaction’s connection as `client` (check after upgrading the adapter)');
  }
  return linked;
}

/**
 * The bare driver inside the interactive transaction `tx`: the first statement links it (see
 * link), every statement then goes straight to the transaction's connection through `on` (the
 * engine's SqlDriver.on). Refuses once the transaction has ended, when the connection may already
 * serve someone else.
 */
export function joinTransaction<Connection>(tx: TransactionClient, on: (connection: Connection) => SqlClient): SqlClient {
  let joined: Promise<{ sql: SqlClient; linked: LinkedConnection }> | undefined;
  const open = async (): Promise<SqlClient> => {
    joined ??= link(tx).then((linked) => ({ sql: on(linked.connection as Connection), linked }));
    const { sql, linked } = await joined;
    if (linked.closed()) throw new Error('this transaction has ended: the bare driver no longer sends statements on its connection');
    return sql;
  };
  return {
    query: async <T>(text: string, params?: readonly unknown[]): Promise<T[]> => (await open()).query<T>(text, params),
    eachRow: async <T>(text: string, params: readonly unknown[], onRow: (row: T) => void): Promise<number> => (await open()).eachRow<T>(text, params, onRow),
  };
}
