import type { SqlClient } from '../db/sql.ts';

/**
 * oidc-provider's storage adapter (its documented interface: upsert, find, findByUid,
 * findByUserCode, consume, destroy, revokeByGrantId) over the oauth_states table, so the
 * authorization server's state — registered clients, interactions, sessions, codes, refresh
 * tokens, its grants — lives in our database on both engines and every process shares it.
 * Shaped after the library's own memory adapter (lib/adapters/memory_adapter.js).
 */
export type StoredPayload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number };

/** Models whose rows belong to a grant and die with it (the memory adapter's `grantable`). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

interface Row {
  payload: StoredPayload;
  consumed_at: Date | null;
}

export class OAuthStateStore {
  constructor(
    private readonly sql: SqlClient,
    private readonly model: string,
    private readonly now: () => Date,
    /** Told, and awaited, when the library revokes a grant's tokens (our grant goes with them). */
    private readonly onGrantRevoked: (grantId: string) => Promise<void> = async () => {},
  ) {}

  async upsert(id: string, payload: StoredPayload, expiresIn?: number): Promise<void> {
    const expiresAt = typeof expiresIn === 'number' ? new Date(this.now().getTime() + expiresIn * 1000) : null;
    await this.sql.query(
      `INSERT INTO oauth_states (model, id, payload, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
       ON CONFLICT (model, id) DO UPDATE
         SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
             user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at, consumed_at = NULL`,
      [
        this.model,
        id,
        JSON.stringify(payload),
        GRANTABLE.has(this.model) ? (payload.grantId ?? null) : null,
        this.model === 'Session' ? (payload.uid ?? null) : null,
        payload.userCode ?? null,
        expiresAt,
      ],
    );
  }

  find(id: string): Promise<StoredPayload | undefined> {
    return this.one('id = $2', id);
  }

  findByUid(uid: string): Promise<StoredPayload | undefined> {
    return this.one('uid = $2', uid);
  }

  findByUserCode(userCode: string): Promise<StoredPayload | undefined> {
    return this.one('user_code = $2', userCode);
  }

  /** Marks a one-time artefact used; find() then reports `consumed`, which the library checks (reuse detection). */
  async consume(id: string): Promise<void> {
    await this.sql.query('UPDATE oauth_states SET consumed_at = $3 WHERE model = $1 AND id = $2', [this.model, id, this.now()]);
  }

  async destroy(id: string): Promise<void> {
    await this.sql.query('DELETE FROM oauth_states WHERE model = $1 AND id = $2', [this.model, id]);
  }

  /** Every code and token of one grant, whatever its model (the library calls this on one model's adapter). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.onGrantRevoked(grantId);
    await this.sql.query('DELETE FROM oauth_states WHERE grant_id = $1', [grantId]);
  }

  private async one(where: string, value: string): Promise<StoredPayload | undefined> {
    const [row] = await this.sql.query<Row>(
      `SELECT payload, consumed_at FROM oauth_states
        WHERE model = $1 AND ${where} AND (expires_at IS NULL OR expires_at > $3)`,
      [this.model, value, this.now()],
    );
    if (!row) return undefined;
    return row.consumed_at === null ? row.payload : { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) };
  }
}

/** Deletes expired rows; run now and then (expired rows are never returned, only kept). */
export async function sweepExpiredStates(sql: SqlClient, now: Date): Promise<void> {
  await sql.query('DELETE FROM oauth_states WHERE expires_at <= $1', [now]);
}

/**
 * Everything the authorization server keeps for one of its grants — the grant itself, its codes
 * and refresh tokens — deleted, as its own revocation does (lib/helpers/revoke.js): for revoking
 * from outside it (revokeOAuthGrant), in the caller's transaction.
 */
export async function revokeProviderGrant(sql: SqlClient, providerGrantId: string): Promise<void> {
  await sql.query("DELETE FROM oauth_states WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)", [providerGrantId]);
}
