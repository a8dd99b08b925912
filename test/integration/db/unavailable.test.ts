import { createServer, type Server, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, TRANSACTION_OPTIONS, type Database } from '../../../domain/db/client.ts';
import { isDatabaseUnavailable, sqlState } from '../../../domain/db/errors.ts';
import { CONNECT_TIMEOUT_MS } from '../../../domain/db/sql.ts';
import { ERROR_CATALOG } from '../../../registry/error-catalog.ts';
import { unexpectedError } from '../../../pipeline/unexpected-error.ts';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';

/**
 * One question, asked of real drivers and a real server (never of made-up error objects): does this
 * error mean the database is unreachable (retry: 503) or that it refused the statement (our bug or
 * the caller's)? The restart test (test/e2e/db-restart.test.ts) relies on every answer here.
 */

const silent = pino({ level: 'silent' });
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('expected a failure'),
    (error: unknown) => error,
  );

/** Every way the app reaches the database: the bare driver, a Prisma query, a raw one, a transaction. */
const everyPath = (db: Database): Promise<unknown>[] => [
  failure(db.sql.query('SELECT 1')),
  failure(db.prisma.company.findMany()),
  failure(db.prisma.$queryRawUnsafe('SELECT 1')),
  failure(db.prisma.$transaction(async (tx) => tx.$executeRawUnsafe('SELECT 1'), TRANSACTION_OPTIONS)),
  // Prisma's own wait for a transaction's connection, shorter than the pool's.
  failure(db.prisma.$transaction(async (tx) => tx.$executeRawUnsafe('SELECT 1'), { maxWait: 100 })),
  failure(db.asAnon((anon) => anon.$queryRawUnsafe('SELECT 1'))),
];

describe('a database that cannot be reached', () => {
  it("refusing connections (nothing listens): every path reads as unavailable, answered as the catalogue's 503 with Retry-After", async () => {
    const url = 'postgres://postgres@127.0.0.1:1/gone';
    const db = await openDatabase({ databaseUrl: url, anonDatabaseUrl: url, dataDir: 'memory' });
    try {
      const errors = await Promise.all(everyPath(db));
      expect(errors.map(isDatabaseUnavailable)).toEqual(errors.map(() => true));
      const answered = unexpectedError(errors[0], silent, 'req_test');
      expect(answered.code).toBe('SERVICE_UNAVAILABLE');
      expect(ERROR_CATALOG.SERVICE_UNAVAILABLE).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } });
    } finally {
      await db.close();
    }
  });

  describe('accepting connections and never answering', () => {
    let server: Server;
    const sockets = new Set<Socket>();
    let port = 0;
    beforeAll(async () => {
      // A black hole: TCP connects, the startup message is never answered.
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it(
      `gives up after CONNECT_TIMEOUT_MS (${CONNECT_TIMEOUT_MS} ms) on every path, as unavailable, instead of hanging`,
      async () => {
        const url = `postgres://postgres@127.0.0.1:${port}/hole`;
        const db = await openDatabase({ databaseUrl: url, anonDatabaseUrl: url, dataDir: 'memory' });
        try {
          const started = Date.now();
          const errors = await Promise.all(everyPath(db));
          // The bound under test: generous against a loaded machine, far below "forever".
          expect(Date.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS * 3);
          expect(errors.map(isDatabaseUnavailable)).toEqual(errors.map(() => true));
        } finally {
          await db.close();
        }
      },
      CONNECT_TIMEOUT_MS * 6,
    );
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('a session the server ends (PostgreSQL)', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('postgres');
  });
  afterAll(async () => t?.close());

  // pg_terminate_backend of one's own session: the server ends it with 57P01, as a restart does.
  const TERMINATE_SELF = 'SELECT pg_terminate_backend(pg_backend_pid())';

  it('57P01 mid-query and mid-transaction, and the dead connection after it, read as unavailable; the pool opens a fresh one', async () => {
    const { prisma, sql } = t.services.database;
    const errors = await Promise.all([
      failure(sql.query(TERMINATE_SELF)),
      failure(prisma.$queryRawUnsafe(TERMINATE_SELF)),
      failure(prisma.$transaction(async (tx) => tx.$queryRawUnsafe(TERMINATE_SELF))),
      // The statement after the connection died inside a transaction: the driver's own wording, no SQLSTATE.
      failure(
        prisma.$transaction(async (tx) => {
          await tx.$queryRawUnsafe(TERMINATE_SELF).catch(() => undefined);
          return tx.$queryRawUnsafe('SELECT 1');
        }),
      ),
    ]);
    expect(errors.slice(0, 3).map(sqlState)).toEqual(['57P01', '57P01', '57P01']);
    expect(errors.map(isDatabaseUnavailable)).toEqual([true, true, true, true]);
    // Nothing stays broken: the next statements get live connections.
    expect(await sql.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await prisma.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('a statement the database refuses is not unavailability (a 500 or its own catalogue error, never a 503)', async () => {
    const { prisma, sql } = t.services.database;
    const errors = await Promise.all([
      failure(sql.query('SELEC 1')), // 42601
      failure(prisma.$executeRawUnsafe(`INSERT INTO companies (id, name, org_number) VALUES (gen_random_uuid(), NULL, 'x')`)), // 23502
      failure(sql.query(`SELECT 1/0`)), // 22012
      failure(sql.query('SELECT * FROM no_such_table')), // 42P01
    ]);
    expect(errors.map(isDatabaseUnavailable)).toEqual([false, false, false, false]);
    expect(unexpectedError(errors[0], silent, 'req_test').code).toBe('INTERNAL_ERROR');
  });
});
