import type pino from 'pino';
import type { SqlClient } from '../db/sql.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { SecretBox } from '../kernel/crypto.ts';

const PURPOSE = 'personal_identity_number';

/** The keyed digest the unique index (company_id, pin_digest) compares; the number normalised first. */
export const pinDigestOf = (box: SecretBox, pin: string): string => box.digest(PURPOSE, pin);

/**
 * Employees registered before digests existed get theirs (the migration could not: it has no
 * key). Run at start-up after migrating; a few rows at most, and none after the first run. Two old
 * rows with the same number cannot both have one: the later is left without, logged by id (never
 * the number), for a person to merge or correct. Through the bare driver, as every start runs it.
 */
export async function backfillPinDigests(sql: SqlClient, box: SecretBox, logger: pino.Logger): Promise<void> {
  const rows = await sql.query<{ id: string; pin_encrypted: string }>(
    'SELECT id, pin_encrypted FROM employees WHERE pin_digest IS NULL ORDER BY created_at, id',
    [],
  );
  for (const row of rows) {
    try {
      await sql.query('UPDATE employees SET pin_digest = $1 WHERE id = $2::uuid', [pinDigestOf(box, box.decrypt(row.pin_encrypted)), row.id]);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      logger.warn({ employee_id: row.id }, 'employee shares a personal identity number with another employee of its company; correct one of them');
    }
  }
}
