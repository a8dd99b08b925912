/**
 * What every HTTP benchmark starts with: a fresh PostgreSQL database, migrated once here, a bench
 * tenant with a key, and the real app in this process to seed fixtures through the API. Then
 * `ready()` closes the seeding connections and pins this process (the load generator) to its core,
 * `start()` launches pinned server processes that only connect, and `close()` undoes it all.
 */
import { buildApp } from '../../cli/build-app.ts';
import { createServices } from '../../domain/bootstrap.ts';
import type { Services } from '../../domain/context.ts';
import { loadConfig } from '../../domain/kernel/config.ts';
import { createLogger } from '../../domain/kernel/logger.ts';
import { createPostgresDatabase, TEST_ENCRYPTION_KEY, testResolver } from '../../test/helpers/db.ts';
import { LOAD_CPU, pin, startServer, type Server } from './load.ts';
import { seedBenchTenant } from './seed.ts';

export interface BenchSession {
  /** The privileged URL of the bench database (e.g. for a check after the rounds). */
  databaseUrl: string;
  /** Open until ready(): for set-based seeding in SQL. */
  services: Services;
  /** The full app on `services`, for fixtures made through the API as a client makes them. */
  app: ReturnType<typeof buildApp>;
  key: string;
  companyId: string;
  /** Seeding done: closes `services` and pins this process to the load core. */
  ready(): Promise<void>;
  /** Starts a target of targets.ts on this database (after ready()). */
  start(target: string): Promise<Server>;
  /** Stops every server started and drops the database; safe to call at any point. */
  close(): Promise<void>;
}

export async function openBenchSession(): Promise<BenchSession> {
  const db = await createPostgresDatabase();
  const servers: Server[] = [];
  let services: Services | null = null;
  const closeServices = async () => {
    const open = services;
    services = null;
    await open?.database.close();
  };
  const close = async () => {
    // Servers first: dropping the database under their open connections makes them log errors.
    await Promise.all(servers.map((server) => server.stop()));
    await closeServices();
    await db.drop();
  };
  try {
    const opened = await createServices(
      loadConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'warn', DISPATCHER_TIMER: 'false' }),
      // Webhook URLs are checked against the tests' fixed DNS table: seeding never uses the network.
      { logger: createLogger('warn'), resolver: testResolver },
    );
    services = opened;
    const { key, companyId } = await seedBenchTenant(opened.database.prisma);
    // The child starts with this process's key: the database recorded it (its key check) when it was made here.
    const env = { BENCH_DATABASE_URL: db.url, BENCH_DATABASE_ANON_URL: db.anonUrl, BENCH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
    return {
      databaseUrl: db.url,
      services: opened,
      app: buildApp(opened),
      key,
      companyId,
      ready: async () => {
        await closeServices();
        pin(process.pid, LOAD_CPU);
      },
      start: async (target) => {
        const server = await startServer(target, env);
        servers.push(server);
        return server;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
