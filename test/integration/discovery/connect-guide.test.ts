import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { call } from '../../helpers/http.ts';
import { ROOT } from '../../helpers/process.ts';
import { buildApp } from '../../../cli/build-app.ts';
import { connectionGuide, renderConnectionGuide } from '../../../discovery/connect-guide.ts';
import { DISCOVERY_PATHS } from '../../../discovery/discovery-paths.ts';
import { openApiPath } from '../../../discovery/openapi.ts';
import { MCP_SKILL_NAME, SKILL_FILE } from '../../../discovery/skills.ts';
import { AUTHORIZATION_SERVER_METADATA_PATH, MCP_AUTHORIZATION_SPEC_VERSION, OAUTH_ROUTES } from '../../../http/oauth/paths.ts';
import { RESOURCE_METADATA_PREFIX } from '../../../http/oauth/resources.ts';
import { registry } from '../../../registry/index.ts';
import { CAPABILITY_DOCS_PREFIX, capabilityIdOf } from '../../../registry/capabilities.ts';

const BASE = 'https://api.example.test';

/**
 * Issue 31: the capability pages, llms.txt, the skills (and their indexes) and /docs say how to
 * connect, each carrying the one connection guide (discovery/connect-guide.ts) in full; README and
 * docs/oauth.md name the MCP authorization spec version and the same endpoints.
 */
describe('how to connect, on every discovery surface', () => {
  let t: TestServices;
  let app: ReturnType<typeof buildApp>;
  const guide = connectionGuide(BASE);
  const rendered = renderConnectionGuide(BASE);

  beforeAll(async () => {
    t = await createTestServices('pglite', { config: { PUBLIC_BASE_URL: BASE } });
    app = buildApp(t.services);
  });
  afterAll(async () => t?.close());

  const get = async (path: string) => {
    const response = await call(app, 'GET', path);
    expect(response.status, path).toBe(200);
    return response;
  };

  it('the guide names the spec version and every endpoint of the flow, absolute under PUBLIC_BASE_URL', () => {
    expect(guide.summary).toContain(MCP_AUTHORIZATION_SPEC_VERSION);
    const text = guide.steps.join('\n');
    for (const path of [
      `${RESOURCE_METADATA_PREFIX}/mcp`,
      AUTHORIZATION_SERVER_METADATA_PATH,
      OAUTH_ROUTES.registration,
      OAUTH_ROUTES.authorization,
      OAUTH_ROUTES.token,
    ]) {
      expect(text).toContain(`${BASE}${path}`);
    }
    expect(text).toContain('S256');
    // Operation ids the guide names exist.
    for (const id of ['listOAuthGrants', 'revokeOAuthGrant']) expect(registry.byId(id), id).toBeDefined();
  });

  it('llms.txt carries it before its first section', async () => {
    const text = (await get(DISCOVERY_PATHS.llmsTxt)).text;
    expect(text).toContain(rendered);
    expect(text.indexOf(rendered)).toBeLessThan(text.indexOf('\n## '));
  });

  it('the MCP skill carries it, and both skills indexes describe it', async () => {
    for (const dir of [DISCOVERY_PATHS.skillsDir, DISCOVERY_PATHS.agentSkillsDir]) {
      expect((await get(`${dir}/${MCP_SKILL_NAME}/${SKILL_FILE}`)).text).toContain(rendered);
    }
    for (const index of [DISCOVERY_PATHS.skillsIndex, DISCOVERY_PATHS.agentSkillsIndex]) {
      const skills = (await get(index)).body.skills as { name: string; description: string }[];
      expect(skills.find((skill) => skill.name === MCP_SKILL_NAME)?.description, index).toContain(guide.summary);
    }
  });

  it('/docs renders the OpenAPI description with every example, whose info carries it; openapi.json says where it is', async () => {
    const page = (await get(DISCOVERY_PATHS.docsPage)).text;
    expect(page).toContain(openApiPath('all'));
    const full = (await get(openApiPath('all'))).body as { info: { description: string } };
    expect(full.info.description).toContain(rendered);
    const openapi = (await get(DISCOVERY_PATHS.openapi)).body as { info: { description: string } };
    expect(openapi.info.description).toContain(guide.summary);
    for (const where of [DISCOVERY_PATHS.llmsTxt, openApiPath('all'), DISCOVERY_PATHS.docsPage]) expect(openapi.info.description).toContain(`${BASE}${where}`);
  });

  it("every capability record's page (its docsPath) carries it", async () => {
    for (const op of registry.operations) {
      const text = (await get(`${CAPABILITY_DOCS_PREFIX}/${capabilityIdOf(op.id)}`)).text;
      expect(text, op.id).toContain(rendered);
    }
  });

  it('README shows a hosted-style client connecting, and README and docs/oauth.md name the spec version followed', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const section = readme.slice(readme.indexOf('### Connect a hosted agent (OAuth)'));
    expect(section.length).toBeLessThan(readme.length);
    expect(section).toContain(`authorization spec ${MCP_AUTHORIZATION_SPEC_VERSION}`);
    for (const path of [`${RESOURCE_METADATA_PREFIX}/mcp`, OAUTH_ROUTES.registration, OAUTH_ROUTES.authorization]) expect(section).toContain(path);
    expect(section).toContain('OAuthClientProvider');
    const oauthDoc = readFileSync(join(ROOT, 'docs/oauth.md'), 'utf8').replaceAll('**', '').replace(/\s+/g, ' ');
    expect(oauthDoc).toContain(`MCP authorization specification ${MCP_AUTHORIZATION_SPEC_VERSION}`);
  });
});
