import type { Context } from 'hono';
import type { Services } from '../domain/context.ts';
import { attributeKey, attributionMustFail } from '../domain/apikeys/keys.ts';
import type { Admission } from '../domain/apikeys/admit.ts';
import { admitBearer } from '../pipeline/admit-bearer.ts';
import { acceptedAudiences } from '../http/oauth/resources.ts';
import type { AppEnv } from '../http/app-env.ts';
import { readBearer } from '../http/bearer.ts';

/**
 * Admits a protected request with the privileged identity: the key (or OAuth access token), its rate-limit count and
 * (given the path's company) tenancy, in one round trip. invoke() enforces what it says.
 */
export async function authenticate(
  services: Services,
  c: Context<AppEnv>,
  companyId: string | null,
): Promise<{ ok: true; admission: Admission } | { ok: false; reason: 'missing_token' | 'invalid_token' }> {
  const bearer = readBearer(c.req.header('authorization'));
  if (bearer.kind === 'missing') return { ok: false, reason: 'missing_token' };
  if (bearer.kind === 'malformed') return { ok: false, reason: 'invalid_token' };
  const admission = await admitBearer(services, bearer.token, acceptedAudiences(services.config.PUBLIC_BASE_URL, 'api'), companyId);
  return admission ? { ok: true, admission } : { ok: false, reason: 'invalid_token' };
}

/**
 * Public routes: an optional key only attributes the request (looked up as api_anon). A missing,
 * malformed or unknown token silently means anonymous and never an error (spec Endpoints 8); an
 * unreachable database is the one failure passed on (503), as the route would meet it next.
 */
export async function attributePublic(services: Services, c: Context<AppEnv>): Promise<{ apiKeyId: string } | null> {
  const bearer = readBearer(c.req.header('authorization'));
  if (bearer.kind !== 'token') return null;
  try {
    return await services.database.asAnon((db) => attributeKey(db, bearer.token));
  } catch (error) {
    if (attributionMustFail(error)) throw error; // answered 503 like the route's own statement would be
    services.logger.warn({ err: error, request_id: c.get('requestId') }, 'public attribution failed');
    return null;
  }
}
