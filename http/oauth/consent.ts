import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { admit } from '../../domain/apikeys/admit.ts';
import { KEY_PATTERN } from '../../domain/apikeys/keys.ts';
import type { Principal, Services } from '../../domain/context.ts';
import { DomainError } from '../../domain/kernel/errors.ts';
import { PAYROLL_SCOPES, SCOPE_DESCRIPTIONS, Scope } from '../../domain/kernel/scopes.ts';
import { createGrant, grantableCompanies } from '../../domain/oauth/grants.ts';
import type { AppEnv } from '../app-env.ts';
import { consentPage, messagePage, pageHeaders, signInPage } from './pages.ts';
import type { OAuthServer } from './provider.ts';
import { systemContextFor } from './system-context.ts';

/**
 * The sign-in and consent steps of one pending authorization (oidc-provider "interactions").
 * Sign-in takes one of the person's API keys (decision in docs/oauth.md: it is the credential
 * the service already has, and it bounds the grant — never more scopes, companies or mode than
 * the key). Consent picks companies and scopes. Every POST carries a CSRF token bound to the
 * interaction this browser's cookie names; the key, once checked, travels as a signed ticket
 * bound to the same interaction, so nothing about the person is kept between the two steps.
 */

type Interaction = Awaited<ReturnType<OAuthServer['provider']['interactionDetails']>>;

const hmac = (secret: string, text: string): string => createHmac('sha256', secret).update(text).digest('base64url');
const same = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const csrfToken = (secret: string, uid: string): string => hmac(secret, `csrf:${uid}`);

/** `<api key id>.<expiry>.<mac>`: the signed-in key for this interaction only, until it expires. */
function ticketFor(secret: string, uid: string, apiKeyId: string, expiresAt: number): string {
  return `${apiKeyId}.${expiresAt}.${hmac(secret, `ticket:${uid}:${apiKeyId}:${expiresAt}`)}`;
}
function readTicket(secret: string, uid: string, ticket: string, nowSeconds: number): string | null {
  const [apiKeyId, expiresAt, mac] = ticket.split('.');
  if (!apiKeyId || !expiresAt || !mac || Number(expiresAt) < nowSeconds) return null;
  return same(mac, hmac(secret, `ticket:${uid}:${apiKeyId}:${expiresAt}`)) ? apiKeyId : null;
}

const html = (status: number, body: string, formTargets: readonly string[] = []): Response => new Response(body, { status, headers: pageHeaders(formTargets) });

interface Pending {
  interaction: Interaction;
  clientId: string;
  clientName: string;
  redirectUri: string;
  resource: string;
  requested: Scope[];
}

async function pending(server: OAuthServer, c: Context<AppEnv>): Promise<Pending | Response> {
  const { incoming, outgoing } = c.env ?? {};
  if (!incoming || !outgoing) throw new Error('the consent page needs the Node request');
  let interaction: Interaction;
  try {
    interaction = await server.provider.interactionDetails(incoming, outgoing);
  } catch {
    return html(400, messagePage('This sign-in has expired', 'Start connecting again from your agent.'));
  }
  // The path names the interaction the cookie found, or the page is not this browser's.
  if (interaction.uid !== c.req.param('uid')) return html(400, messagePage('This sign-in has expired', 'Start connecting again from your agent.'));
  const params = interaction.params as Record<string, unknown>;
  const clientId = String(params.client_id ?? '');
  const client = await server.provider.Client.find(clientId);
  if (!client) return html(400, messagePage('Unknown client', 'The client that started this sign-in is not registered.'));
  const requested = String(params.scope ?? '')
    .split(' ')
    .filter((scope): scope is Scope => Scope.safeParse(scope).success);
  return {
    interaction,
    clientId,
    clientName: client.clientName ?? clientId,
    redirectUri: String(params.redirect_uri ?? ''),
    resource: String(params.resource ?? ''),
    requested,
  };
}

const originOf = (uri: string): string[] => {
  try {
    return [new URL(uri).origin];
  } catch {
    return [];
  }
};

/** GET: the sign-in form. */
export async function showInteraction(server: OAuthServer, secret: string, c: Context<AppEnv>): Promise<Response> {
  const found = await pending(server, c);
  if (found instanceof Response) return found;
  return html(200, signInPage({ action: c.req.path, clientName: found.clientName, csrf: csrfToken(secret, found.interaction.uid) }));
}

/** POST: sign in (step 1), then approve or deny (step 2). */
export async function submitInteraction(services: Services, server: OAuthServer, secret: string, c: Context<AppEnv>): Promise<Response> {
  const found = await pending(server, c);
  if (found instanceof Response) return found;
  const { interaction } = found;
  const form = await c.req.parseBody({ all: true });
  const field = (name: string): string => {
    const value = form[name];
    return typeof value === 'string' ? value : '';
  };
  const list = (name: string): string[] => {
    const value = form[name];
    return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((item): item is string => typeof item === 'string');
  };
  // CSRF: the token of the interaction this browser's cookie names (and a same-origin form).
  const origin = c.req.header('origin');
  const expectedOrigin = new URL(services.config.PUBLIC_BASE_URL).origin;
  if (!same(field('csrf'), csrfToken(secret, interaction.uid)) || (origin !== undefined && origin !== 'null' && origin !== expectedOrigin)) {
    return html(403, messagePage('Request refused', 'This form was not sent from the sign-in page (CSRF check failed). Start again from your agent.'));
  }
  const csrf = csrfToken(secret, interaction.uid);
  const nowSeconds = Math.floor(services.now().getTime() / 1000);
  const admitKey = (key: { token: string } | { apiKeyId: string }) =>
    admit(services.database.sql, key, { companyId: null, now: services.now(), defaultRateLimit: services.config.RATE_LIMIT_PER_MINUTE });

  const step = field('step');
  if (step === 'sign_in') {
    const token = field('api_key').trim();
    const admission = KEY_PATTERN.test(token) ? await admitKey({ token }) : null;
    if (!admission) {
      return html(401, signInPage({ action: c.req.path, clientName: found.clientName, csrf, error: 'That API key is not valid, or it was revoked.' }));
    }
    const ticket = ticketFor(secret, interaction.uid, admission.principal.apiKeyId, interaction.exp);
    return consent(services, found, c.req.path, csrf, ticket, admission.principal);
  }

  const apiKeyId = readTicket(secret, interaction.uid, field('ticket'), nowSeconds);
  const signer = apiKeyId ? (await admitKey({ apiKeyId }))?.principal : undefined;
  if (!signer) return html(401, signInPage({ action: c.req.path, clientName: found.clientName, csrf, error: 'Sign in again: the key is no longer valid.' }));

  if (step === 'deny') {
    const returnTo = await server.provider.interactionResult(
      c.env!.incoming!,
      c.env!.outgoing!,
      { error: 'access_denied', error_description: 'The person denied the request.' },
      { mergeWithLastSubmission: false },
    );
    return redirect(returnTo, found.redirectUri);
  }
  if (step !== 'approve') return html(400, messagePage('Request refused', 'Choose Allow or Deny.'));

  const scopes = [...new Set(list('scope'))];
  const companyIds = [...new Set(list('company'))];
  const reconsent = (error: string, status: number) => consent(services, found, c.req.path, csrf, field('ticket'), signer, error, status);
  if (scopes.length === 0) return reconsent('Tick at least one permission.', 400);
  if (companyIds.length === 0) return reconsent('Tick at least one company.', 400);
  // Scope escalation: only what the client asked for, and only what the key holds (createGrant checks the key again).
  const unrequested = scopes.filter((scope) => !(found.requested as string[]).includes(scope));
  if (unrequested.length > 0) return reconsent(`Not requested by the client: ${unrequested.join(', ')}.`, 403);
  const grantScopes = scopes.filter((scope): scope is Scope => Scope.safeParse(scope).success);

  const ctx = { ...systemContextFor(services), actor: signer };
  const providerGrant = new server.provider.Grant({ accountId: signer.userId, clientId: found.clientId });
  // The library asks consent for scopes it knows server-wide (provider.ts) and for the resource's: both get the same ones.
  providerGrant.addOIDCScope(grantScopes.join(' '));
  providerGrant.addResourceScope(found.resource, grantScopes.join(' '));
  // What was asked for and not ticked is refused, not left pending (else the library asks again).
  const refused = found.requested.filter((scope) => !grantScopes.includes(scope));
  if (refused.length > 0) {
    providerGrant.rejectOIDCScope(refused.join(' '));
    providerGrant.rejectResourceScope(found.resource, refused.join(' '));
  }
  const providerGrantId = await providerGrant.save();
  try {
    await createGrant(ctx, { providerGrantId, clientId: found.clientId, clientName: found.clientName, scopes: grantScopes, companyIds });
  } catch (error) {
    await providerGrant.destroy();
    if (error instanceof DomainError && (error.code === 'INSUFFICIENT_SCOPE' || error.code === 'NOT_FOUND')) {
      return reconsent(error.code === 'NOT_FOUND' ? 'You cannot grant a company your key does not reach.' : error.message, 403);
    }
    throw error;
  }
  const returnTo = await server.provider.interactionResult(
    c.env!.incoming!,
    c.env!.outgoing!,
    { login: { accountId: signer.userId }, consent: { grantId: providerGrantId } },
    { mergeWithLastSubmission: false },
  );
  return redirect(returnTo, found.redirectUri);
}

async function consent(
  services: Services,
  found: Pending,
  action: string,
  csrf: string,
  ticket: string,
  signer: Principal,
  error?: string,
  status = 200,
): Promise<Response> {
  const companies = await grantableCompanies(systemContextFor(services), signer);
  // Offered: what the client asked for and the key holds, nothing else.
  const offered = found.requested.filter((scope) => signer.scopes.includes(scope));
  return html(
    status,
    consentPage({
      action,
      clientName: found.clientName,
      redirectHost: originOf(found.redirectUri)[0] ?? found.redirectUri,
      csrf,
      ticket,
      mode: signer.mode,
      companies,
      scopes: offered.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope], payroll: PAYROLL_SCOPES.includes(scope) })),
      ...(error !== undefined && { error }),
    }),
    originOf(found.redirectUri),
  );
}

/** 303 to the authorization endpoint to finish; the client's origin stays allowed for the redirect after it. */
const redirect = (location: string, redirectUri: string): Response =>
  new Response(null, { status: 303, headers: { ...pageHeaders(originOf(redirectUri)), Location: location } });
