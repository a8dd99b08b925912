import { join } from 'node:path';
import type pino from 'pino';
import { ConfigError, databaseWaits, type Config } from './kernel/config.ts';
import type { Services } from './context.ts';
import { SecretBox } from './kernel/crypto.ts';
import { createLogger, prettyLogs } from './kernel/logger.ts';
import { openDatabase } from './db/client.ts';
import type { PgliteAssets } from './db/pglite-assets.ts';
import type { StatementListener } from './db/statement-log.ts';
import { migratePglite, migratePostgres } from './db/migrate.ts';
import { backfillPinDigests } from './payroll/pin-digest.ts';
import { checkConfiguredFiles } from './platform/configured-files.ts';
import { checkEncryptionKey } from './platform/key-check.ts';
import { parseCidrList, RESOLVE_TIMEOUT_MS, systemResolver, type Resolver } from './webhooks/url-safety.ts';

export interface BootstrapOptions {
  logger?: pino.Logger;
  now?: () => Date;
  /** Apply pending migrations before serving (the default; workers may skip it). */
  migrate?: boolean;
  /**
   * Compare ENCRYPTION_KEY with the database's recorded check value before anything uses it (the
   * default; every entry point does). Only a test of a database that is not there turns it off.
   */
  checkKey?: boolean;
  /** Use an in-memory PGlite instead of DATA_DIR (tests). */
  memory?: boolean;
  /** DNS resolver for webhook URL checks; tests inject one so nothing depends on outside DNS. */
  resolver?: Resolver;
  /** Told every statement the privileged client sends (tests count round trips). */
  onStatement?: StatementListener;
  /** Whether the process's standard output is a terminal (entry points pass process.stdout.isTTY). */
  stdoutIsTerminal?: boolean;
  /** How this process is named to another one refused the embedded data directory. */
  processName?: string;
  /** PGlite's WebAssembly and file bundle, preloaded from the process's start (npm start). */
  pgliteAssets?: PgliteAssets;
}

/** Opens the database (migrating it), loads the encryption key and builds the shared services. */
export async function createServices(config: Config, options: BootstrapOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(config.LOG_LEVEL, { pretty: prettyLogs(config.LOG_FORMAT, options.stdoutIsTerminal ?? false) });
  checkConfiguredFiles(config, { dataDirUsed: (config.embedded && !options.memory) || !config.ENCRYPTION_KEY });
  // Migrations run as the schema's owner and hold a session advisory lock: always on a direct
  // connection (DATABASE_MIGRATION_URL, by default the direct one), never a pooler's.
  if (config.DATABASE_MIGRATION_URL && options.migrate !== false) await migratePostgres(config.DATABASE_MIGRATION_URL);
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    anonDatabaseUrl: config.DATABASE_ANON_URL,
    dataDir: options.memory ? 'memory' : config.DATA_DIR,
    onStatement: options.onStatement,
    preparedStatements: !config.pooled,
    waits: databaseWaits(config),
    ...(options.processName && { processName: options.processName }),
    pgliteAssets: options.pgliteAssets,
    onCreated: (how, template) => {
      if (how === 'template') logger.info({ template }, 'embedded database created from the migrated template');
      else logger.info({ template }, `no migrated template at ${template} (npm run build makes it): creating the embedded database with initdb, a few seconds`);
    },
  });
  if (database.pglite && options.migrate !== false) await migratePglite(database.pglite);
  const secretBox = config.ENCRYPTION_KEY ? SecretBox.fromSetting(config.ENCRYPTION_KEY) : SecretBox.fromDataDir(config.DATA_DIR);
  // Before anything reads or writes a secret with it (the PIN backfill below, deliveries, OAuth keys).
  if (options.checkKey !== false) {
    const keySource = config.ENCRYPTION_KEY ? 'ENCRYPTION_KEY' : `The key file ${join(config.DATA_DIR, 'encryption.key')}`;
    try {
      await checkEncryptionKey(database.sql, secretBox, keySource);
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  if (options.migrate !== false) await backfillPinDigests(database.sql, secretBox, logger);
  let allowedPrivateCidrs: string[];
  try {
    allowedPrivateCidrs = parseCidrList(config.WEBHOOK_ALLOWED_PRIVATE_CIDRS ?? '');
  } catch (error) {
    throw new ConfigError(`Invalid configuration: WEBHOOK_ALLOWED_PRIVATE_CIDRS: ${(error as Error).message}`);
  }
  if (allowedPrivateCidrs.length > 0) {
    // Loud on purpose: this setting lets webhooks reach private networks.
    logger.warn({ cidrs: allowedPrivateCidrs }, 'WEBHOOK_ALLOWED_PRIVATE_CIDRS is set: webhooks may target these private ranges');
  }
  return {
    config,
    database,
    secretBox,
    logger,
    now: options.now ?? (() => new Date()),
    webhookUrlPolicy: { resolver: options.resolver ?? systemResolver, allowedPrivateCidrs, resolveTimeoutMs: RESOLVE_TIMEOUT_MS },
    loops: { delivery: 0, operations: 0 },
  };
}
