import type { SqlClient } from '../db/sql.ts';
import type { Principal } from '../context.ts';
import { sha256Hex } from '../kernel/crypto.ts';
import { rateLimitWindowStart } from '../ratelimit/window.ts';
import { KEY_PATTERN } from './keys.ts';

/** What one round trip to the database decides about a request made with an API key. */
export interface Admission {
  principal: Principal;
  /** Requests counted in the key's current window, this one included. */
  requestCount: number;
  /** The company asked about and whether the key may act on it; null when none was asked. */
  company: { id: string; access: boolean } | null;
}

export interface AdmitOptions {
  /** The path's company, when the operation is company-scoped (a malformed id is never sent). */
  companyId: string | null;
  now: Date;
  /** RATE_LIMIT_PER_MINUTE: the limit of keys without their own. */
  defaultRateLimit: number;
}

interface Row {
  api_key_id: string;
  name: string;
  user_id: string;
  key_company_id: string | null;
  /** Comma-separated. */
  scopes: string;
  mode: string;
  rate_limit_per_minute: number | null;
  request_count: number;
  company_access: boolean | null;
  grant_id: string | null;
  /** Comma-separated; null unless the key record is a grant's. */
  grant_company_ids: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Authentication, the rate-limit count and tenancy in one statement (admit_request in SQL): an
 * authenticated read then costs this plus its own query. Looks the key up by the SHA-256 digest
 * of the bearer token — not a slow KDF: the key carries ~190 bits of entropy — or by its id when
 * the caller already resolved it. Null when there is no such active key (nothing is counted).
 */
export async function admit(sql: SqlClient, key: { token: string } | { apiKeyId: string }, options: AdmitOptions): Promise<Admission | null> {
  let keyHash: string | null = null;
  if ('token' in key) {
    if (!KEY_PATTERN.test(key.token)) return null;
    keyHash = sha256Hex(key.token);
  }
  const apiKeyId = 'apiKeyId' in key ? key.apiKeyId : null;
  const companyId = options.companyId !== null && UUID.test(options.companyId) ? options.companyId : null;
  const [row] = await sql.query<Row>('SELECT * FROM admit_request($1, $2, $3, $4)', [keyHash, apiKeyId, companyId, rateLimitWindowStart(options.now)]);
  if (!row) return null;
  return {
    principal: {
      apiKeyId: row.api_key_id,
      apiKeyName: row.name,
      userId: row.user_id,
      companyId: row.key_company_id,
      scopes: row.scopes === '' ? [] : row.scopes.split(','),
      mode: row.mode === 'live' ? 'live' : 'test',
      rateLimitPerMinute: row.rate_limit_per_minute ?? options.defaultRateLimit,
      grant: row.grant_id === null ? null : { id: row.grant_id, companyIds: row.grant_company_ids ? row.grant_company_ids.split(',') : [] },
    },
    requestCount: row.request_count,
    company: companyId === null ? null : { id: companyId, access: row.company_access === true },
  };
}
