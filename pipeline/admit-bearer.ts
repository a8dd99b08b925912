import { admit, type Admission } from '../domain/apikeys/admit.ts';
import type { Services } from '../domain/context.ts';
import { looksLikeAccessToken, verifierFor } from '../domain/oauth/access-token.ts';
import { loadSigningKeys, publicJwks } from '../domain/oauth/signing-keys.ts';

/**
 * Admission of any bearer token, for every surface: an API key as before, or an OAuth access
 * token (docs/oauth.md) checked for our signature, issuer, expiry and audience — one of
 * `audiences`, the resource being called — then admitted through its grant's credential record in the same single round
 * trip, so its scopes, companies, mode and rate limit are enforced exactly as a key's are. Null
 * for anything not good (unknown, revoked, expired, another audience).
 */
export async function admitBearer(services: Services, token: string, audiences: readonly string[], companyId: string | null): Promise<Admission | null> {
  const options = { companyId, now: services.now(), defaultRateLimit: services.config.RATE_LIMIT_PER_MINUTE };
  if (!looksLikeAccessToken(token)) return admit(services.database.sql, { token }, options);
  const issuer = services.config.PUBLIC_BASE_URL;
  const verifier = await verifierFor(services, issuer, async () => publicJwks(await loadSigningKeys(services.database.sql, services.secretBox)));
  const apiKeyId = await verifier.verify(token, audiences);
  return apiKeyId === null ? null : admit(services.database.sql, { apiKeyId }, options);
}
