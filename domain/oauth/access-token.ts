import type { JWK } from 'jose';
import { ACCESS_TOKEN_ALG } from './signing-keys.ts';

/** The claim carrying the grant's credential record (api_keys.id), added at issuance. */
export const KEY_CLAIM = 'key_id';

/** A compact JWS: three base64url parts. API keys (sk_…) never have dots, so the two never mix. */
const JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeAccessToken = (token: string): boolean => JWS.test(token);

export interface AccessTokenVerifier {
  /** The credential record a valid token for one of `audiences` acts through, or null for any token we did not issue for it. */
  verify(token: string, audiences: readonly string[]): Promise<string | null>;
}

/**
 * Checks an access token as RFC 9068 asks of a resource server: our signature and algorithm,
 * `typ` at+jwt, our issuer, the audience of the resource being called (RFC 8707: a token for
 * another resource is refused), not expired. Whether its grant still stands is admission's job.
 */
export function accessTokenVerifier(issuer: string, publicKeys: readonly JWK[]): AccessTokenVerifier {
  let keySet: ReturnType<typeof import('jose').createLocalJWKSet> | undefined;
  return {
    async verify(token, audiences) {
      if (!looksLikeAccessToken(token)) return null;
      // jose loads with the first access token, not at start-up (issue 30): API keys never need it.
      const { createLocalJWKSet, jwtVerify } = await import('jose');
      keySet ??= createLocalJWKSet({ keys: [...publicKeys] });
      try {
        const { payload } = await jwtVerify(token, keySet, { issuer, audience: [...audiences], algorithms: [ACCESS_TOKEN_ALG], typ: 'at+jwt' });
        const keyId = payload[KEY_CLAIM];
        return typeof keyId === 'string' ? keyId : null;
      } catch {
        return null;
      }
    },
  };
}

/**
 * The verifier of one service's tokens: the public keys read once from the database (every
 * process shares them) and kept for the life of the services.
 */
const verifiers = new WeakMap<object, Promise<AccessTokenVerifier>>();
export function verifierFor(owner: object, issuer: string, load: () => Promise<readonly JWK[]>): Promise<AccessTokenVerifier> {
  let found = verifiers.get(owner);
  if (!found) {
    found = load().then((keys) => accessTokenVerifier(issuer, keys));
    // A failed load (the database was down) is retried by the next request, not remembered.
    found.catch(() => verifiers.delete(owner));
    verifiers.set(owner, found);
  }
  return found;
}
