import type pino from 'pino';
import type { Db } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import type { SecretBox } from '../kernel/crypto.ts';

const PURPOSE = 'personal_identity_number';

/** The keyed digest the unique index (company_id, pin_digest) compares; the number normalised first. */
export const pinDigestOf = (box: SecretBox, pin: string): string => box.digest(PURPOSE, pin);

/**
 * Employees registered before digests existed get theirs (the migration could not: it has no
 * key). Run at start-up after migrating; a few rows at most, and none after the first run. Two old
 * rows with the same number cannot both have one: the later is left without, logged by id (never
 * the number), for a person to merge or correct.
 */
export async function backfillPinDigests(db: Db, box: SecretBox, logger: pino.Logger): Promise<void> {
  const rows = await db.$queryRaw<{ id: string; pin_encrypted: string }[]>`
    SELECT id, pin_encrypted FROM employees WHERE pin_digest IS NULL ORDER BY created_at, id`;
  for (const row of rows) {
    try {
      await db.$executeRaw`UPDATE employees SET pin_digest = ${pinDigestOf(box, box.decrypt(row.pin_encrypted))} WHERE id = ${row.id}::uuid`;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      logger.warn({ employee_id: row.id }, 'employee shares a personal identity number with another employee of its company; correct one of them');
    }
  }
}
