import { randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { Principal } from '../context.ts';
import { sha256Hex } from '../kernel/crypto.ts';
import { Scope } from '../kernel/scopes.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 32; // ~190 bits of entropy
const VISIBLE_PREFIX_CHARS = 12; // `sk_test_` + 4: enough to tell keys apart in a list

export const KeyMode = z.enum(['test', 'live']);
export type KeyMode = z.infer<typeof KeyMode>;

export const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

export const CreateApiKeyInput = z.object({
  userId: z.uuid(),
  name: z.string().min(1).max(100),
  mode: KeyMode,
  scopes: z.array(Scope).min(1),
  companyId: z.uuid().nullable().default(null),
  rateLimitPerMinute: z.number().int().positive().nullable().default(null),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export function generateKey(mode: KeyMode): string {
  let random = '';
  for (let i = 0; i < RANDOM_CHARS; i++) random += BASE62[randomInt(BASE62.length)];
  return `sk_${mode}_${random}`;
}

/** Stores only the SHA-256 digest and a short prefix; the plaintext is returned once, here. */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<{ id: string; key: string; prefix: string }> {
  const parsed = CreateApiKeyInput.parse(input);
  const key = generateKey(parsed.mode);
  const prefix = key.slice(0, VISIBLE_PREFIX_CHARS);
  const row = await db.apiKey.create({
    data: {
      userId: parsed.userId,
      companyId: parsed.companyId,
      name: parsed.name,
      mode: parsed.mode,
      scopes: parsed.scopes,
      prefix,
      keyHash: sha256Hex(key),
      rateLimitPerMinute: parsed.rateLimitPerMinute,
    },
    select: { id: true },
  });
  return { id: row.id, key, prefix };
}

/**
 * Resolves a bearer token to its principal. A SHA-256 digest lookup (not a slow KDF): the key
 * carries enough entropy that a fast hash is safe, and it keeps authentication off the hot path.
 */
export async function authenticateKey(db: Db, token: string, defaultRateLimit: number): Promise<Principal | null> {
  if (!KEY_PATTERN.test(token)) return null;
  const row = await db.apiKey.findUnique({ where: { keyHash: sha256Hex(token) } });
  if (!row || row.revokedAt !== null) return null;
  return {
    apiKeyId: row.id,
    apiKeyName: row.name,
    userId: row.userId,
    companyId: row.companyId,
    scopes: row.scopes,
    mode: row.mode === 'live' ? 'live' : 'test',
    rateLimitPerMinute: row.rateLimitPerMinute ?? defaultRateLimit,
  };
}

/**
 * Whether a failed attribution must fail the request rather than leave it anonymous: only when the
 * database cannot be reached (the route's own statement would wait out the same bound next, so a
 * frozen database would cost the request two bounds instead of one).
 */
export const attributionMustFail = (error: unknown): boolean => isDatabaseUnavailable(error);

/** Attribution on public routes, through the api_anon identity's one permitted function. */
export async function attributeKey(anonDb: Db, token: string): Promise<{ apiKeyId: string; userId: string } | null> {
  if (!KEY_PATTERN.test(token)) return null;
  const rows = await anonDb.$queryRaw<{ api_key_id: string; user_id: string }[]>`
    SELECT api_key_id, user_id FROM resolve_api_key_attribution(${sha256Hex(token)})`;
  const row = rows[0];
  return row ? { apiKeyId: row.api_key_id, userId: row.user_id } : null;
}

export async function revokeApiKey(db: Db, id: string, now: Date): Promise<boolean> {
  const result = await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  return result.count === 1;
}
