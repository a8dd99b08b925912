import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../domain/kernel/config.ts';
import type { Services } from '../../domain/context.ts';
import { createServices } from '../../domain/bootstrap.ts';
import { migratePostgres, migrationsDigest, readMigrations } from '../../domain/db/migrate.ts';
import type { Resolver } from '../../domain/webhooks/url-safety.ts';

export type DbTarget = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const DB_TARGETS: DbTarget[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
export const POSTGRES_AVAILABLE = Boolean(process.env.TEST_DATABASE_URL);

/** Captures JSON log lines so tests can assert on denials and on what never gets logged. */
export class LogCapture {
  readonly lines: Record<string, unknown>[] = [];
  readonly raw: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        this.raw.push(line);
        this.lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  readonly logger = pino({ level: 'debug', redact: { paths: ['authorization', '*.authorization', 'secret', '*.secret'], censor: '[redacted]' } }, this.stream);
}

export interface TestDatabase {
  url?: string;
  anonUrl?: string;
  drop(): Promise<void>;
}

/** Serialises template creation across test processes (and concurrent runs on one server). */
const TEMPLATE_LOCK_ID = 7_245_001;

const databaseUrl = (adminUrl: string, name: string): string => {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * The migrated template for this set of migrations, named by their digest so a changed migration
 * gets a new one: made once per server (under an advisory lock, renamed into place only when fully
 * migrated), then cloned by every suite, which is quicker than migrating each fresh database.
 */
let templateName: Promise<string> | undefined;
function migratedTemplate(adminUrl: string): Promise<string> {
  templateName ??= (async () => {
    const name = `tpl_${migrationsDigest(readMigrations())}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_ID]);
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount === 0) {
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building}`);
        await migratePostgres(databaseUrl(adminUrl, building));
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        // Nobody connects to the template, so a clone never waits for it to be free.
        await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return templateName;
}

/** A fresh PostgreSQL database per suite; CI reuses one server across runs, so always drop it. */
export async function createPostgresDatabase(): Promise<TestDatabase & { url: string; anonUrl: string }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const template = await migratedTemplate(adminUrl);
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(databaseUrl(adminUrl, name));
  const anon = new URL(url);
  anon.username = 'api_anon';
  anon.password = '';
  return {
    url: url.toString(),
    anonUrl: anon.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export const TEST_ENCRYPTION_KEY = randomBytes(32).toString('hex');

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'acct-test-')),
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'debug',
    PUBLIC_BASE_URL: 'https://api.example.test',
    ...overrides,
  });
}

export interface TestServices {
  services: Services;
  logs: LogCapture;
  config: Config;
  /** Present on PostgreSQL: the database's URLs, e.g. to start more app instances on it. */
  database?: { url: string; anonUrl: string };
  close(): Promise<void>;
}

export interface TestServiceOptions {
  config?: Record<string, string | undefined>;
  now?: () => Date;
  resolver?: Resolver;
  /** Told every statement the privileged identity sends (round-trip counting). */
  onStatement?: (sql: string) => void;
}

/**
 * DNS for tests: a fixed table, never the network. Names ending in .example.com resolve to a
 * public documentation-range address unless listed; anything else is NXDOMAIN.
 */
export const TEST_DNS: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'internal.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
};
export const testResolver: Resolver = async (hostname) => {
  const listed = TEST_DNS[hostname];
  if (listed) return listed;
  if (hostname.endsWith('.example.com')) return ['93.184.216.34'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** Services on a fresh, migrated database of the given kind. */
export async function createTestServices(target: DbTarget, options: TestServiceOptions = {}): Promise<TestServices> {
  const logs = new LogCapture();
  if (target === 'pglite') {
    const config = testConfig(options.config);
    const services = await createServices(config, {
      logger: logs.logger,
      memory: true,
      resolver: options.resolver ?? testResolver,
      ...(options.now && { now: options.now }),
      ...(options.onStatement && { onStatement: options.onStatement }),
    });
    return { services, logs, config, close: () => services.database.close() };
  }
  const db = await createPostgresDatabase();
  const config = testConfig({ DATABASE_URL: db.url, DATABASE_ANON_URL: db.anonUrl, ...options.config });
  const services = await createServices(config, {
    logger: logs.logger,
    resolver: options.resolver ?? testResolver,
    ...(options.now && { now: options.now }),
    ...(options.onStatement && { onStatement: options.onStatement }),
  });
  return {
    services,
    logs,
    config,
    database: { url: db.url, anonUrl: db.anonUrl },
    close: async () => {
      await services.database.close();
      await db.drop();
    },
  };
}
