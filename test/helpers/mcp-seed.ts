import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../../domain/bootstrap.ts';
import { loadConfig } from '../../domain/kernel/config.ts';
import { createMembership } from '../../domain/users/admin.ts';
import { SCOPES } from '../../domain/kernel/scopes.ts';
import { makeCompany, makeKey, makeUser } from './factories.ts';

export interface SeededDataDir {
  dataDir: string;
  companyId: string;
  /** Every scope. */
  key: string;
  /** Every scope but webhooks:manage. */
  noWebhooksKey: string;
}

/**
 * A migrated embedded database in a fresh DATA_DIR with one company and two keys, closed again so a
 * server or stdio process can open it (PGlite allows one process at a time). Already having a user,
 * it makes `cli/serve.ts` skip the demo seed.
 */
export async function seedDataDir(): Promise<SeededDataDir> {
  const dataDir = mkdtempSync(join(tmpdir(), 'acct-mcp-e2e-'));
  const services = await createServices(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  try {
    const db = services.database.prisma;
    const userId = await makeUser(db);
    const companyId = await makeCompany(db, { name: 'MCP E2E AB' });
    await createMembership(db, { userId, companyId, role: 'owner' });
    const key = (await makeKey(db, userId)).key;
    const noWebhooksKey = (await makeKey(db, userId, { scopes: SCOPES.filter((s) => s !== 'webhooks:manage') })).key;
    return { dataDir, companyId, key, noWebhooksKey };
  } finally {
    await services.database.close();
  }
}
