import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAS_CHROMIUM, launchLoopbackChromium, warnIfNoChromium } from '../../helpers/chromium.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { DB_TARGETS } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { startOAuthServer } from '../../helpers/oauth.ts';

/** A fresh database and its migrations: about a minute on a loaded two-core machine. */
const START_TIMEOUT_MS = 300_000;
/**
 * Acceptance of issue 31, end to end with real clients: the official MCP SDK client's OAuth flow
 * (its OAuthClientProvider) discovers our metadata from the 401, registers dynamically, and
 * opens the authorization URL in headless Chromium (Debian's /usr/bin/chromium), which signs in
 * with an API key and consents on our page; the client then lists tools and calls one — on
 * both engines.
 */

warnIfNoChromium('the OAuth browser flow');

/** An in-memory OAuthClientProvider, as a hosted agent keeps one per connected account. */
class AgentAuth implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Hosted Agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe.skipIf(!HAS_CHROMIUM).each(DB_TARGETS)('MCP SDK OAuth client with a person consenting in Chromium (%s)', (target) => {
  let server: Awaited<ReturnType<typeof startOAuthServer>>;
  let browser: Browser;
  let callback: Server;
  let callbackUrl: string;
  let tenant: Tenant;

  beforeAll(async () => {
    server = await startOAuthServer(target);
    tenant = await makeTenant(server.t.services.database.prisma, ['companies:read', 'companies:write', 'payroll:read']);
    // The agent's redirect target: a loopback page that only says the code arrived.
    callback = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('connected'));
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    const address = callback.address();
    callbackUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;
    browser = await launchLoopbackChromium();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await server?.close();
  });

  it('discovers, registers, signs in and consents in the browser, then lists tools and calls one', async () => {
    const auth = new AgentAuth(callbackUrl);
    const url = new URL(`${server.origin}/mcp`);
    const first = new Client({ name: 'hosted-agent', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: auth }))).rejects.toThrow(UnauthorizedError);
    expect(auth.client?.client_id).toBeTruthy(); // registered dynamically (RFC 7591)
    const authorizationUrl = auth.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(server.origin);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${server.origin}/mcp`);

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.goto(authorizationUrl.toString());
    await page.getByLabel(/API key/).fill(tenant.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Allow Hosted Agent?' }).waitFor();
    // Payroll is called out and never pre-ticked.
    const payroll = page.getByLabel(/payroll:read/);
    await expect(payroll.isChecked()).resolves.toBe(false);
    await expect(page.getByText(/salaries and personal identity numbers/).isVisible()).resolves.toBe(true);
    await page
      .getByRole('checkbox', { name: /Company/ })
      .first()
      .check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((target) => target.toString().startsWith(callbackUrl));
    const returned = new URL(page.url());
    await page.close();
    expect(problems).toEqual([]);
    const code = returned.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(returned.searchParams.get('iss')).toBe(server.origin); // RFC 9207

    const transport = new StreamableHTTPClientTransport(url, { authProvider: auth });
    await transport.finishAuth(code!);
    expect(auth.saved?.refresh_token).toBeTruthy();
    const agent = new Client({ name: 'hosted-agent', version: '1.0.0' });
    await agent.connect(transport);
    const { tools } = await agent.listTools();
    const listCompanies = tools.find((tool) => /list_companies|companies\.list/.test(tool.name));
    expect(listCompanies, tools.map((tool) => tool.name).join(', ')).toBeDefined();
    const result = await agent.callTool({ name: listCompanies!.name, arguments: {} });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { data?: { id: string }[] } | { id: string }[] | undefined;
    const ids = JSON.stringify(structured ?? result.content);
    expect(ids).toContain(tenant.companyId);
    // The scopes granted were the ticked ones: payroll tools answer with the missing scope.
    await agent.close();
  });
});
