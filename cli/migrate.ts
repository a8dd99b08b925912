import { openDatabase } from '../domain/db/client.ts';
import { migratePglite, migratePostgres } from '../domain/db/migrate.ts';
import { configFromEnvironment } from './load-config.ts';

const config = configFromEnvironment();
let applied: string[];
if (config.DATABASE_URL) {
  applied = await migratePostgres(config.DATABASE_URL);
} else {
  const database = await openDatabase({ dataDir: config.DATA_DIR });
  applied = await migratePglite(database.pglite!);
  await database.close();
}
process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
