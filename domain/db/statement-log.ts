import type { SqlDriverAdapterFactory } from '@prisma/client/runtime/client';

/** Told the text of every statement sent to the database: one call per round trip. */
export type StatementListener = (sql: string) => void;

const QUERIES = new Set<PropertyKey>(['queryRaw', 'executeRaw']);
const ENDINGS: Readonly<Record<string, string>> = { commit: 'COMMIT', rollback: 'ROLLBACK' };

/**
 * Wraps a Prisma driver adapter so every statement is reported before it is sent. Both adapters
 * send BEGIN inside startTransaction (reported when it returns); on PostgreSQL Prisma sends COMMIT
 * and ROLLBACK through executeRaw, while PGlite's adapter runs them inside the driver ("phantom"
 * queries), reported here as commit() and rollback() are called — so both engines count alike.
 * Only installed when a listener is given (tests counting round trips).
 */
export function observeStatements(factory: SqlDriverAdapterFactory, listener: StatementListener): SqlDriverAdapterFactory {
  const observe = <T extends object>(target: T, phantom = false): T =>
    new Proxy(target, {
      get(object, property) {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        if (QUERIES.has(property)) {
          return (query: { sql: string }) => {
            listener(query.sql);
            return value.call(object, query);
          };
        }
        if (phantom && typeof property === 'string' && ENDINGS[property]) {
          return () => {
            listener(ENDINGS[property] as string);
            return value.call(object);
          };
        }
        if (property === 'connect') return async () => observe(await value.call(object));
        if (property === 'startTransaction') {
          return async (...args: unknown[]) => {
            // Both adapters send BEGIN while starting the transaction, before handing it out.
            const tx = (await value.apply(object, args)) as { options?: { usePhantomQuery?: boolean } };
            listener('BEGIN');
            return observe(tx, tx.options?.usePhantomQuery === true);
          };
        }
        return value.bind(object);
      },
    });
  return observe(factory);
}
