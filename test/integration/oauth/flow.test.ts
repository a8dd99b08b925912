import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { connectionGuide } from '../../../discovery/connect-guide.ts';
import { createMembership } from '../../../domain/users/admin.ts';
import { DB_TARGETS } from '../../helpers/db.ts';
import { makeCompany, makeTenant, type Tenant } from '../../helpers/factories.ts';
import {
  authorizeByForm,
  browse,
  CookieJar,
  fetchFresh,
  hiddenField,
  pkcePair,
  registerClient,
  startOAuthServer,
  tokenRequest,
  type Registered,
} from '../../helpers/oauth.ts';

/** A fresh database and its migrations: about a minute on a loaded two-core machine. */
const START_TIMEOUT_MS = 300_000;
/**
 * The authorization server over real HTTP on both engines: the metadata documents against the
 * fields their RFCs require, and each refusal the issue lists, answered as the RFCs say.
 */
describe.each(DB_TARGETS)('OAuth 2.1 authorization server (%s)', (target) => {
  let server: Awaited<ReturnType<typeof startOAuthServer>>;
  let origin: string;
  let tenant: Tenant;
  let otherCompany: string;
  let client: Registered & Record<string, unknown>;
  const redirectUri = 'http://127.0.0.1:49152/callback';
  const mcp = () => `${origin}/mcp`;
  const api = () => `${origin}/api/v1`;

  beforeAll(async () => {
    server = await startOAuthServer(target);
    origin = server.origin;
    const db = server.t.services.database.prisma;
    tenant = await makeTenant(db, ['companies:read', 'companies:write', 'events:read']);
    otherCompany = await makeCompany(db);
    await createMembership(db, { userId: tenant.userId, companyId: otherCompany, role: 'owner' });
    client = await registerClient(origin, redirectUri);
  }, START_TIMEOUT_MS);
  afterAll(async () => server?.close());

  /** A token pair through the whole flow, for one resource and the tenant's first company. */
  async function tokens(resource: string, scopes = ['companies:read']) {
    const pkce = pkcePair();
    const { code } = await authorizeByForm({
      origin,
      clientId: client.client_id,
      redirectUri,
      apiKey: tenant.key,
      resource,
      scopes,
      grant: { companies: [tenant.companyId] },
      challenge: pkce.challenge,
    });
    const answer = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: pkce.verifier,
      resource,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { access_token: string; refresh_token: string; expires_in: number; token_type: string; scope: string };
  }

  const getCompanies = (token: string, companyId = '') =>
    fetch(`${api()}/companies${companyId ? `/${companyId}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
  const getJson = async (url: string, token: string) => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status, url).toBe(200);
    // `any`: the envelope of one list; the test reads the fields it relies on.
    return (await response.json()) as any;
  };
  const listTools = (token: string) =>
    fetch(mcp(), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  describe('metadata documents, field by field against their RFCs', () => {
    it('protected resource metadata (RFC 9728 §2, §3.3): resource equals the URL it was fetched for; names our authorization server', async () => {
      for (const [path, resource] of [
        ['/.well-known/oauth-protected-resource/mcp', mcp()],
        ['/.well-known/oauth-protected-resource/api/v1', api()],
        ['/.well-known/oauth-protected-resource', origin],
      ] as const) {
        const response = await fetch(`${origin}${path}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        const body = (await response.json()) as Record<string, unknown>;
        expect(body.resource).toBe(resource);
        expect(body.authorization_servers).toEqual([origin]);
        expect(body.bearer_methods_supported).toEqual(['header']);
      }
    });

    it('authorization server metadata (RFC 8414 §2, §3.3; MCP: S256 advertised)', async () => {
      const body = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      // §3.3: the issuer is the URL the metadata was fetched under, without the well-known part.
      expect(body.issuer).toBe(origin);
      for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri', 'revocation_endpoint'] as const) {
        expect(typeof body[field], field).toBe('string');
        expect(new URL(body[field] as string).origin, field).toBe(origin);
      }
      expect(body.response_types_supported).toEqual(['code']);
      expect(body.code_challenge_methods_supported).toEqual(['S256']);
      expect(body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
      expect(body.token_endpoint_auth_methods_supported).toContain('none');
      // Every endpoint the document names answers (no advertised route is missing).
      expect((await fetch(body.jwks_uri as string)).status).toBe(200);
    });

    it('read by clients not written here: oauth4webapi (RFC 8414 §3.3 issuer, RFC 9728 §3.3 resource) and the MCP SDK schemas', async () => {
      const options = { algorithm: 'oauth2' as const, [oauth.allowInsecureRequests]: true, [oauth.customFetch]: fetchFresh };
      const issuer = new URL(origin);
      const server = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
      OAuthMetadataSchema.parse(server);
      // RFC 8414 §2's REQUIRED fields (authorization and token endpoints: this server uses the code grant).
      for (const field of ['issuer', 'response_types_supported', 'authorization_endpoint', 'token_endpoint'] as const)
        expect(server[field], field).toBeDefined();
      for (const resource of [mcp(), api(), origin]) {
        const id = new URL(resource);
        const metadata = await oauth.processResourceDiscoveryResponse(id, await oauth.resourceDiscoveryRequest(id, options));
        OAuthProtectedResourceMetadataSchema.parse(metadata);
        // RFC 9728 §2: resource is REQUIRED; authorization_servers names issuers whose metadata is above.
        expect(metadata.authorization_servers, resource).toEqual([server.issuer]);
      }
      // The connection guide every discovery surface carries names exactly these endpoints.
      const guide = connectionGuide(origin).steps.join('\n');
      for (const endpoint of [server.registration_endpoint, server.authorization_endpoint, server.token_endpoint]) expect(guide).toContain(`${endpoint}`);
      const challenge = (await fetch(mcp(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate')!;
      expect(guide).toContain(/resource_metadata="([^"]+)"/.exec(challenge)![1]);
    });

    it('dynamic registration (RFC 7591 §3.2.1): 201 with a client_id and the registered metadata echoed', () => {
      expect(typeof client.client_id).toBe('string');
      expect(client.redirect_uris).toEqual([redirectUri]);
      expect(client.token_endpoint_auth_method).toBe('none');
      expect(client.client_name).toBe('Test Agent');
    });
  });

  it('401 on /mcp and /api/v1 names the resource metadata (RFC 9728 §5.1), with invalid_token once a token was sent (RFC 6750 §3.1)', async () => {
    const bare = await fetch(mcp(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(`Bearer realm="api", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const bad = await getCompanies('a.b.c');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      `Bearer realm="api", error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/api/v1"`,
    );
  });

  it('a granted token acts with its scopes on its companies only, on REST and MCP alike; short-lived', async () => {
    const issued = await tokens(api());
    expect(issued.token_type).toBe('Bearer');
    expect(issued.expires_in).toBe(600);
    expect(issued.scope).toBe('companies:read');
    const mine = await getCompanies(issued.access_token, tenant.companyId);
    expect(mine.status).toBe(200);
    // The user belongs to otherCompany too, but it was not granted: the same 404 as a stranger's company.
    expect((await getCompanies(issued.access_token, otherCompany)).status).toBe(404);
    const listed = (await (await getCompanies(issued.access_token)).json()) as { data: { companies: { id: string }[] } };
    expect(listed.data.companies.map((company) => company.id)).toEqual([tenant.companyId]);
    // A scope not granted (companies:write was requested by no one here): 403 with required_scope.
    const write = await fetch(`${api()}/companies/${tenant.companyId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${issued.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed' }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: { required_scope: string } }).error.required_scope).toBe('companies:write');
  });

  it('a token for another audience is refused (RFC 8707): an /api/v1 token at /mcp and an /mcp token at /api/v1', async () => {
    const forApi = await tokens(api());
    const forMcp = await tokens(mcp());
    expect((await listTools(forApi.access_token)).status).toBe(401);
    expect((await getCompanies(forMcp.access_token)).status).toBe(401);
    expect((await listTools(forMcp.access_token)).status).toBe(200);
    // A resource that is not ours: invalid_target (RFC 8707 §2).
    const pkce = pkcePair();
    const jar = new CookieJar();
    const url = new URL(`${origin}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'companies:read',
      resource: 'https://elsewhere.example/mcp',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }).toString();
    const refused = await browse(jar, url.toString());
    expect(refused.status).toBe(303);
    expect(new URL(refused.location!).searchParams.get('error')).toBe('invalid_target');
  });

  it('a wrong PKCE verifier gets invalid_grant (RFC 7636 §4.6); a code redeemed twice is refused and its tokens revoked (RFC 6749 §4.1.2)', async () => {
    const pkce = pkcePair();
    const { code } = await authorizeByForm({
      origin,
      clientId: client.client_id,
      redirectUri,
      apiKey: tenant.key,
      resource: mcp(),
      scopes: ['companies:read'],
      grant: { companies: [tenant.companyId] },
      challenge: pkce.challenge,
    });
    const redeem = (verifier: string) =>
      tokenRequest(origin, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: client.client_id,
        code_verifier: verifier,
        resource: mcp(),
      });
    const wrong = await redeem(pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    // No verifier at all is no better.
    const none = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      resource: mcp(),
    });
    expect(none.status).toBe(400);
    expect(['invalid_grant', 'invalid_request']).toContain(none.body.error);
    // The client holding the verifier still redeems its code (a guess cannot burn it), once.
    const right = await redeem(pkce.verifier);
    expect(right.status, JSON.stringify(right.body)).toBe(200);
    const token = right.body.access_token as string;
    expect((await listTools(token)).status).toBe(200);
    const replay = await redeem(pkce.verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // The replay revoked what the code had issued: the access token stops on its next request.
    expect((await listTools(token)).status).toBe(401);
  });

  it('the token endpoint refuses a redirect_uri one character off the authorization request (RFC 6749 §4.1.3)', async () => {
    const pkce = pkcePair();
    const { code } = await authorizeByForm({
      origin,
      clientId: client.client_id,
      redirectUri,
      apiKey: tenant.key,
      resource: mcp(),
      scopes: ['companies:read'],
      grant: { companies: [tenant.companyId] },
      challenge: pkce.challenge,
    });
    const answer = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${redirectUri}/`,
      client_id: client.client_id,
      code_verifier: pkce.verifier,
      resource: mcp(),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    expect(answer.body.access_token).toBeUndefined();
  });

  it("a token not signed by us (every claim copied onto an attacker's key), or unsigned, is refused with invalid_token (RFC 6750 §3.1)", async () => {
    const real = await tokens(api());
    const claims = decodeJwt(real.access_token);
    const header = decodeProtectedHeader(real.access_token);
    // Every claim copied, signed by a key of an attacker's: the signature is checked.
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claims).setProtectedHeader({ ...header, alg: 'ES256' }).sign(privateKey);
    const refused = await getCompanies(forged);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // Unsigned ("alg": "none") is not a token at all.
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: header.typ })).toString('base64url')}.${real.access_token.split('.')[1]}.`;
    expect((await getCompanies(unsigned)).status).toBe(401);
    expect((await getCompanies(real.access_token)).status).toBe(200);
  });

  it('revoking a grant (revokeOAuthGrant) stops its access tokens at once and its refresh token with them, on REST and MCP', async () => {
    const forApi = await tokens(api());
    const grants = await getJson(`${api()}/oauth-grants`, forApi.access_token);
    // A grant's token sees only its own grant.
    expect(grants.data.grants).toHaveLength(1);
    const apiGrant = grants.data.grants[0].id as string;
    const known = new Set(((await getJson(`${api()}/oauth-grants`, tenant.key)).data.grants as { id: string }[]).map((g) => g.id));
    const forMcp = await tokens(mcp());
    const mcpGrant = ((await getJson(`${api()}/oauth-grants`, tenant.key)).data.grants as { id: string }[]).find((g) => !known.has(g.id))!.id;
    expect((await getCompanies(forApi.access_token)).status).toBe(200);
    expect((await listTools(forMcp.access_token)).status).toBe(200);
    for (const grantId of [apiGrant, mcpGrant]) {
      const revoked = await fetch(`${api()}/oauth-grants/${grantId}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}` } });
      expect(revoked.status, await revoked.clone().text()).toBe(200);
      expect(((await revoked.json()) as { data: { revoked_at: string | null } }).data.revoked_at).not.toBeNull();
    }
    const after = await getCompanies(forApi.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await listTools(forMcp.access_token)).status).toBe(401);
    for (const [issued, resource] of [
      [forApi, api()],
      [forMcp, mcp()],
    ] as const) {
      const refresh = await tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: client.client_id, resource });
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
    }
  });

  it('revoking the refresh token at the revocation endpoint (RFC 7009) ends the grant: its access token stops too', async () => {
    const forMcp = await tokens(mcp());
    expect((await listTools(forMcp.access_token)).status).toBe(200);
    const response = await fetch(`${origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: forMcp.refresh_token, token_type_hint: 'refresh_token', client_id: client.client_id }).toString(),
    });
    expect(response.status).toBe(200);
    expect((await listTools(forMcp.access_token)).status).toBe(401);
    const refresh = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: forMcp.refresh_token,
      client_id: client.client_id,
      resource: mcp(),
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a refresh asking for a scope the grant lacks is refused with invalid_scope (RFC 6749 §6), and the grant keeps working', async () => {
    const issued = await tokens(mcp());
    const wider = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: issued.refresh_token,
      client_id: client.client_id,
      resource: mcp(),
      scope: 'companies:read companies:write',
    });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    const same = await tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: client.client_id, resource: mcp() });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.scope).toBe('companies:read');
  });

  it('PKCE is required: an authorization request without code_challenge is refused', async () => {
    const url = new URL(`${origin}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, scope: 'companies:read' }).toString();
    const refused = await browse(new CookieJar(), url.toString());
    expect(refused.status).toBe(303);
    expect(new URL(refused.location!).searchParams.get('error')).toBe('invalid_request');
  });

  it('redirect URIs match exactly: one character off is refused without redirecting; a loopback port may differ (RFC 8252 §7.3)', async () => {
    const pkce = pkcePair();
    const ask = (uri: string) => {
      const url = new URL(`${origin}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: uri,
        scope: 'companies:read',
        resource: mcp(),
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
      }).toString();
      return browse(new CookieJar(), url.toString());
    };
    const offByOne = await ask('http://127.0.0.1:49152/callbacK');
    expect(offByOne.status).toBe(400);
    expect(offByOne.location).toBeNull();
    expect(offByOne.text).toContain('redirect_uri');
    const otherPort = await ask('http://127.0.0.1:50999/callback');
    expect(otherPort.status).toBe(303);
    expect(otherPort.location).toMatch(/^\/oauth\/interaction\//);
  });

  it('refresh tokens rotate, and a refresh token used twice revokes the whole family and the access tokens at once', async () => {
    const first = await tokens(mcp());
    const rotated = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: client.client_id,
      resource: mcp(),
    });
    expect(rotated.status).toBe(200);
    const second = rotated.body as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await listTools(second.access_token)).status).toBe(200);

    const reuse = await tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id, resource: mcp() });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // The family: the newer refresh token is dead, and so is every access token of the grant.
    const after = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token,
      client_id: client.client_id,
      resource: mcp(),
    });
    expect(after.body.error).toBe('invalid_grant');
    expect((await listTools(second.access_token)).status).toBe(401);
    expect((await listTools(first.access_token)).status).toBe(401);
  });

  it('consent never grants more than the signed-in key holds or the client asked for; CSRF on either form is refused', async () => {
    const pkce = pkcePair();
    const jar = new CookieJar();
    const url = new URL(`${origin}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'companies:read payroll:read',
      resource: mcp(),
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }).toString();
    const start = await browse(jar, url.toString());
    const pageUrl = new URL(start.location!, origin).toString();
    const signIn = await browse(jar, pageUrl);
    expect(signIn.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'none'/);
    const csrf = hiddenField(signIn.text, 'csrf');

    // CSRF: no token, a wrong token, and a right token from another origin.
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) => browse(jar, pageUrl, { form: new URLSearchParams(form), headers });
    expect((await post({ api_key: tenant.key, step: 'sign_in' })).status).toBe(403);
    expect((await post({ csrf: `${csrf}x`, api_key: tenant.key, step: 'sign_in' })).status).toBe(403);
    expect((await post({ csrf, api_key: tenant.key, step: 'sign_in' }, { origin: 'https://evil.example' })).status).toBe(403);
    // Without this browser's interaction cookie the page is not found at all.
    expect((await browse(new CookieJar(), pageUrl, { form: new URLSearchParams({ csrf, api_key: tenant.key, step: 'sign_in' }) })).status).toBe(400);

    const signedIn = await post({ csrf, api_key: tenant.key, step: 'sign_in' });
    expect(signedIn.status).toBe(200);
    // The key lacks payroll:read: it is not offered, though the client asked for it.
    expect(signedIn.text).not.toContain('value="payroll:read"');
    const ticket = hiddenField(signedIn.text, 'ticket');
    const grants = () => server.t.services.database.prisma.oauthGrant.count({ where: { userId: tenant.userId } });
    const before = await grants();
    const escalate = (scopes: string[], companies: string[]) => {
      const form = new URLSearchParams({ csrf, ticket, step: 'approve' });
      for (const scope of scopes) form.append('scope', scope);
      for (const company of companies) form.append('company', company);
      return browse(jar, pageUrl, { form });
    };
    // CSRF on the approval too: no token, a wrong one, and the right one from another origin.
    const approve = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      browse(jar, pageUrl, { form: new URLSearchParams({ ticket, step: 'approve', scope: 'companies:read', company: tenant.companyId, ...form }), headers });
    expect((await approve({})).status).toBe(403);
    expect((await approve({ csrf: `${csrf}x` })).status).toBe(403);
    expect((await approve({ csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await grants()).toBe(before);
    const beyondKey = await escalate(['companies:read', 'payroll:read'], [tenant.companyId]);
    expect(beyondKey.status).toBe(403);
    expect(beyondKey.text).toContain('payroll:read');
    const unrequested = await escalate(['companies:write'], [tenant.companyId]);
    expect(unrequested.status).toBe(403);
    const stranger = await makeTenant(server.t.services.database.prisma);
    expect((await escalate(['companies:read'], [stranger.companyId])).status).toBe(403);
    // A forged ticket (another key's id) is not a sign-in.
    const forged = new URLSearchParams({
      csrf,
      ticket: ticket.replace(/^[^.]+/, stranger.apiKeyId),
      step: 'approve',
      scope: 'companies:read',
      company: tenant.companyId,
    });
    expect((await browse(jar, pageUrl, { form: forged })).status).toBe(401);
    expect(await grants()).toBe(before);
  });
});
