import { ConfigError } from '../kernel/config.ts';
import type { SecretBox } from '../kernel/crypto.ts';
import type { SqlClient } from '../db/sql.ts';

/**
 * What the check value is an HMAC of. Any constant works; it is versioned so another scheme
 * could be introduced without reading an old value as a mismatch.
 */
const CHECK_PURPOSE = 'encryption-key-check';
const CHECK_INPUT = 'accounting:encryption-key-check:v1';

/** The check value of a key: a keyed digest of a constant, from which the key cannot be recovered. */
export const keyCheckValue = (secretBox: SecretBox): string => secretBox.digest(CHECK_PURPOSE, CHECK_INPUT);

/**
 * Issue 28: the first start records the key's check value; every later start (server, worker, admin
 * CLI, stdio MCP) compares and refuses another key with one line, before any secret is written or
 * read with it. Two processes starting at once with different keys: the insert is a no-op for the
 * second, which then reads the first one's value and refuses.
 * `keySource` names where the key came from (the setting, or the embedded key file). Through the
 * bare driver: every start runs it, and Prisma's query compiler takes about 0.3 s to start (issue 30).
 */
export async function checkEncryptionKey(sql: SqlClient, secretBox: SecretBox, keySource: string): Promise<void> {
  const value = keyCheckValue(secretBox);
  const read = () => sql.query<{ check_value: string; recorded_at: Date }>('SELECT check_value, recorded_at FROM encryption_key_check WHERE id', []);
  // Read first: only a first start inserts (on PGlite the insert costs a cold start about 50 ms).
  let [recorded] = await read();
  if (!recorded) {
    await sql.query('INSERT INTO encryption_key_check (id, check_value) VALUES (true, $1) ON CONFLICT (id) DO NOTHING', [value]);
    // A statement of its own: its snapshot sees a row another process committed meanwhile.
    [recorded] = await read();
  }
  if (!recorded) throw new Error('encryption key check: the recorded row is missing');
  if (recorded.check_value !== value) {
    throw new ConfigError(
      `${keySource} is not the key this database was first started with (its check value was recorded ${recorded.recorded_at.toISOString()}): start with that key; with another, stored secrets cannot be decrypted.`,
    );
  }
}
