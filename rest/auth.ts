import type { Context } from 'hono';
import type { Services } from '../domain/kernel/context.ts';
import type { Principal } from '../domain/kernel/context.ts';
import { authenticateKey, attributeKey } from '../domain/apikeys/keys.ts';
import type { AppEnv } from '../registry/http/app-env.ts';
import { readBearer } from '../registry/http/bearer.ts';


/** Resolves the key of a protected request with the privileged identity. */
export async function authenticate(services: Services, c: Context<AppEnv>): Promise<
  { ok: true; principal: Principal } | { ok: false; reason: 'missing_token' | 'invalid_token' }
> {
  const bearer = readBearer(c.req.header('authorization'));
  if (bearer.kind === 'missing') return { ok: false, reason: 'missing_token' };
  if (bearer.kind === 'malformed') return { ok: false, reason: 'invalid_token' };
  const principal = await authenticateKey(services.database.prisma, bearer.token, services.config.RATE_LIMIT_PER_MINUTE);
  return principal ? { ok: true, principal } : { ok: false, reason: 'invalid_token' };
}

/**
 * Public routes: an optional key only attributes the request (looked up as api_anon). A missing,
 * malformed or unknown token silently means anonymous and never an error (spec Endpoints 8).
 */
export async function attributePublic(services: Services, c: Context<AppEnv>): Promise<{ apiKeyId: string } | null> {
  const bearer = readBearer(c.req.header('authorization'));
  if (bearer.kind !== 'token') return null;
  try {
    return await services.database.asAnon((db) => attributeKey(db, bearer.token));
  } catch (error) {
    services.logger.warn({ err: error, request_id: c.get('requestId') }, 'public attribution failed');
    return null;
  }
}
