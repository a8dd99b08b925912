import type { Db } from '../db/client.ts';
import type { SecretBox } from '../kernel/crypto.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000; // keys are kept 24 h (DESIGN.md §6)
// A request that crashed mid-way must not block its key forever; after this the key can be retried.
export const IDEMPOTENCY_LOCK_MS = 2 * 60 * 1000;

/** A record's state (idempotency_records.state): in_progress until the first request's answer is stored. */
export const IDEMPOTENCY_STATES = ['in_progress', 'completed'] as const;

export type IdempotencyBegin = { kind: 'started' } | { kind: 'replay'; status: number; body: string } | { kind: 'reused' } | { kind: 'in_progress' };

interface Claim {
  apiKeyId: string;
  key: string;
  fingerprint: string;
  now: Date;
}

/**
 * Claims an idempotency key before the write runs. Exactly one of any number of concurrent
 * requests with the same key gets `started`; the others see `in_progress`, `replay` or `reused`.
 */
export async function beginIdempotent(db: Db, claim: Claim): Promise<IdempotencyBegin> {
  const lockedUntil = new Date(claim.now.getTime() + IDEMPOTENCY_LOCK_MS);
  const expiresAt = new Date(claim.now.getTime() + IDEMPOTENCY_TTL_MS);
  const inserted = await db.$queryRaw<{ ok: number }[]>`
    INSERT INTO idempotency_records (api_key_id, idempotency_key, request_fingerprint, state, locked_until, expires_at)
    VALUES (${claim.apiKeyId}::uuid, ${claim.key}, ${claim.fingerprint}, 'in_progress', ${lockedUntil}, ${expiresAt})
    ON CONFLICT (api_key_id, idempotency_key) DO NOTHING
    RETURNING 1 AS ok`;
  if (inserted.length === 1) return { kind: 'started' };

  // Take over an expired record, or an in-progress one whose owner died, in one atomic step.
  const takenOver = await db.$queryRaw<{ ok: number }[]>`
    UPDATE idempotency_records
       SET request_fingerprint = ${claim.fingerprint}, state = 'in_progress', response_status = NULL,
           response_body = NULL, locked_until = ${lockedUntil}, expires_at = ${expiresAt}, created_at = ${claim.now}
     WHERE api_key_id = ${claim.apiKeyId}::uuid AND idempotency_key = ${claim.key}
       AND (expires_at <= ${claim.now} OR (state = 'in_progress' AND locked_until <= ${claim.now}
            AND request_fingerprint = ${claim.fingerprint}))
    RETURNING 1 AS ok`;
  if (takenOver.length === 1) return { kind: 'started' };

  const existing = await db.idempotencyRecord.findUnique({
    where: { apiKeyId_idempotencyKey: { apiKeyId: claim.apiKeyId, idempotencyKey: claim.key } },
  });
  if (!existing) return beginIdempotent(db, claim); // deleted between our statements: try again
  if (existing.requestFingerprint !== claim.fingerprint) return { kind: 'reused' };
  if (existing.state === 'completed' && existing.responseStatus !== null && existing.responseBody !== null) {
    return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
  }
  return { kind: 'in_progress' };
}

/** Stores the result; call inside the write's transaction so the two commit together. */
export async function completeIdempotent(db: Db, box: SecretBox, ref: { apiKeyId: string; key: string }, status: number, body: string): Promise<void> {
  await db.idempotencyRecord.update({
    where: { apiKeyId_idempotencyKey: { apiKeyId: ref.apiKeyId, idempotencyKey: ref.key } },
    data: { state: 'completed', responseStatus: status, responseBody: box.encrypt(body) },
  });
}

/** Releases the key after a failed request so the caller can retry with the same key. */
export async function abandonIdempotent(db: Db, ref: { apiKeyId: string; key: string }): Promise<void> {
  await db.idempotencyRecord.deleteMany({
    where: { apiKeyId: ref.apiKeyId, idempotencyKey: ref.key, state: 'in_progress' },
  });
}
