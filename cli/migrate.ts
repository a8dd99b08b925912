import { openDatabase } from '../domain/db/client.ts';
import { migratePglite, migratePostgres } from '../domain/db/migrate.ts';
import { configFromEnvironment, startupStep } from './load-config.ts';

const config = configFromEnvironment();
const applied = await startupStep(async () => {
  // A session advisory lock serialises migrators: never through a transaction-mode pooler.
  if (config.DATABASE_MIGRATION_URL) return migratePostgres(config.DATABASE_MIGRATION_URL);
  const database = await openDatabase({ dataDir: config.DATA_DIR, processName: 'npm run migrate' });
  try {
    return await migratePglite(database.pglite!);
  } finally {
    await database.close();
  }
});
process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
