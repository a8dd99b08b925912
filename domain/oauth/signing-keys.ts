import type { JWK } from 'jose';
import type { SqlClient } from '../db/sql.ts';
import type { SecretBox } from '../kernel/crypto.ts';

/** ES256: small tokens, and what MCP clients and jose verify without options. */
export const ACCESS_TOKEN_ALG = 'ES256';

/** A fixed id for the first key: processes racing to create it agree on one. */
const FIRST_KID = 'access-1';

/**
 * The private signing key of access tokens, shared by every API process through the database
 * (encrypted with ENCRYPTION_KEY): made once by whichever process starts first; later ones read it.
 */
export async function loadSigningKeys(sql: SqlClient, box: SecretBox): Promise<JWK[]> {
  const read = async (): Promise<JWK[]> => {
    const rows = await sql.query<{ private_jwk_encrypted: string }>('SELECT private_jwk_encrypted FROM oauth_signing_keys ORDER BY created_at DESC');
    return rows.map((row) => JSON.parse(box.decrypt(row.private_jwk_encrypted)) as JWK);
  };
  const existing = await read();
  if (existing.length > 0) return existing;
  // Loaded only here and for access tokens, not at start-up (issue 30).
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey } = await generateKeyPair(ACCESS_TOKEN_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const full: JWK = { ...jwk, kid: FIRST_KID, alg: ACCESS_TOKEN_ALG, use: 'sig' };
  // Two processes starting at once: one fixed kid, so the first insert wins and both read it.
  await sql.query('INSERT INTO oauth_signing_keys (kid, private_jwk_encrypted) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    FIRST_KID,
    box.encrypt(JSON.stringify(full)),
  ]);
  return read();
}

/** The public half of each key (what /oauth/jwks publishes and token admission verifies with). */
export const publicJwks = (keys: readonly JWK[]): JWK[] => keys.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use }));
