import { createHash, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { buildApp } from '../../cli/build-app.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { listen } from '../../rest/server.ts';
import { createTestServices, type DbTarget, type TestServices } from './db.ts';

/**
 * A real server on a loopback port whose PUBLIC_BASE_URL is its own origin (the OAuth issuer and
 * the token audiences are derived from it): the port is bound first, the app built once it is known.
 * `app` is the same app, for in-process requests beside the flows over HTTP.
 */
export async function startOAuthServer(
  target: DbTarget,
  options: { config?: Record<string, string> } = {},
): Promise<{ t: TestServices; origin: string; app: Hono<AppEnv>; close(): Promise<void> }> {
  let inner: Hono<AppEnv> | null = null;
  const outer = new Hono<AppEnv>();
  outer.all('*', (c) => {
    if (!inner) return new Response('starting', { status: 503 });
    return inner.fetch(c.req.raw, c.env);
  });
  const { server, port } = await listen(outer, 0, '127.0.0.1');
  const origin = `http://127.0.0.1:${port}`;
  const t = await createTestServices(target, { config: { ...options.config, PUBLIC_BASE_URL: origin } });
  const app = buildApp(t.services);
  inner = app;
  return {
    t,
    origin,
    app,
    close: async () => {
      await new Promise((resolve) => (server as Server).close(resolve));
      await t.close();
    },
  };
}

/**
 * fetch on a connection of its own: the server runs in this process, so on a loaded machine its
 * keep-alive timer can close a pooled socket just as the next request takes it (ECONNRESET).
 */
export const fetchFresh = (url: string, init: RequestInit = {}): Promise<Response> =>
  fetch(url, { ...init, headers: { connection: 'close', ...(init.headers as Record<string, string> | undefined) } });

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A browser's cookies, as far as these flows need them (every cookie to every path of one origin). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A browser request: cookies in and out, redirects not followed. */
export async function browse(jar: CookieJar, url: string, init: { method?: string; form?: URLSearchParams; headers?: Record<string, string> } = {}) {
  const response = await fetchFresh(url, {
    method: init.method ?? (init.form ? 'POST' : 'GET'),
    redirect: 'manual',
    headers: {
      cookie: jar.header(),
      ...(init.form && { 'content-type': 'application/x-www-form-urlencoded' }),
      ...init.headers,
    },
    ...(init.form && { body: init.form.toString() }),
  });
  jar.take(response);
  return { status: response.status, location: response.headers.get('location'), headers: response.headers, text: await response.text() };
}

export const hiddenField = (html: string, name: string): string => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no ${name} field in the page`);
  return match[1]!.replace(/&amp;/g, '&');
};

export interface Registered {
  client_id: string;
  redirect_uris: string[];
}

/** RFC 7591 registration of a public native client with loopback redirect URIs. */
export async function registerClient(origin: string, redirectUri: string): Promise<Registered & Record<string, unknown>> {
  const response = await fetchFresh(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Agent',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }),
  });
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${await response.text()}`);
  return (await response.json()) as Registered & Record<string, unknown>;
}

export interface FlowOptions {
  origin: string;
  clientId: string;
  redirectUri: string;
  apiKey: string;
  resource: string;
  scopes: string[];
  /** Ticked on the consent page (default: every one requested). */
  grant?: { scopes?: string[]; companies: string[] };
  challenge: string;
}

/** The authorization code flow as a browser walks it: authorize → sign in → consent → back to the client with a code. */
export async function authorizeByForm(options: FlowOptions): Promise<{ code: string; jar: CookieJar; callback: URL }> {
  const jar = new CookieJar();
  const authorize = new URL(`${options.origin}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scopes.join(' '),
    resource: options.resource,
    code_challenge: options.challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
  }).toString();
  const start = await browse(jar, authorize.toString());
  if (start.status !== 303 || !start.location) throw new Error(`authorize: ${start.status} ${start.text}`);
  const pageUrl = new URL(start.location, options.origin).toString();
  const signIn = await browse(jar, pageUrl);
  const signedIn = await browse(jar, pageUrl, {
    form: new URLSearchParams({ csrf: hiddenField(signIn.text, 'csrf'), api_key: options.apiKey, step: 'sign_in' }),
  });
  if (signedIn.status !== 200) throw new Error(`sign in: ${signedIn.status} ${signedIn.text}`);
  const form = new URLSearchParams({ csrf: hiddenField(signedIn.text, 'csrf'), ticket: hiddenField(signedIn.text, 'ticket'), step: 'approve' });
  for (const scope of options.grant?.scopes ?? options.scopes) form.append('scope', scope);
  for (const company of options.grant?.companies ?? []) form.append('company', company);
  const approved = await browse(jar, pageUrl, { form });
  if (approved.status !== 303 || !approved.location) throw new Error(`consent: ${approved.status} ${approved.text}`);
  const resumed = await browse(jar, new URL(approved.location, options.origin).toString());
  if (resumed.status !== 303 || !resumed.location) throw new Error(`resume: ${resumed.status} ${resumed.text}`);
  const callback = new URL(resumed.location, options.origin);
  if (callback.origin === options.origin) throw new Error(`another interaction: ${resumed.location}`);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${resumed.location}`);
  return { code, jar, callback };
}

export async function tokenRequest(origin: string, params: Record<string, string>) {
  const response = await fetchFresh(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * What a hosted client holds once a person has consented: an access token for one resource
 * (through the whole flow: authorize, sign in, consent, code with PKCE), renewed with its rotating
 * refresh token once half its life is gone, so a long suite never meets an expired token.
 */
export class OAuthSession {
  private constructor(
    private readonly origin: string,
    private readonly clientId: string,
    private readonly resource: string,
    private tokens: { access_token: string; refresh_token: string; renewAt: number },
  ) {}

  static async grant(options: {
    origin: string;
    client: Registered;
    apiKey: string;
    resource: string;
    scopes: readonly string[];
    companies: readonly string[];
  }): Promise<OAuthSession> {
    const pkce = pkcePair();
    const redirectUri = options.client.redirect_uris[0]!;
    const { code } = await authorizeByForm({
      origin: options.origin,
      clientId: options.client.client_id,
      redirectUri,
      apiKey: options.apiKey,
      resource: options.resource,
      scopes: [...options.scopes],
      grant: { companies: [...options.companies] },
      challenge: pkce.challenge,
    });
    const answer = await tokenRequest(options.origin, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: options.client.client_id,
      code_verifier: pkce.verifier,
      resource: options.resource,
    });
    return new OAuthSession(options.origin, options.client.client_id, options.resource, OAuthSession.held(answer));
  }

  private static held(answer: Awaited<ReturnType<typeof tokenRequest>>) {
    if (answer.status !== 200) throw new Error(`token: ${answer.status} ${JSON.stringify(answer.body)}`);
    const body = answer.body as { access_token: string; refresh_token: string; expires_in: number };
    return { access_token: body.access_token, refresh_token: body.refresh_token, renewAt: Date.now() + (body.expires_in * 1000) / 2 };
  }

  async accessToken(): Promise<string> {
    if (Date.now() >= this.tokens.renewAt) {
      this.tokens = OAuthSession.held(
        await tokenRequest(this.origin, {
          grant_type: 'refresh_token',
          refresh_token: this.tokens.refresh_token,
          client_id: this.clientId,
          resource: this.resource,
        }),
      );
    }
    return this.tokens.access_token;
  }
}
