import type { Context, Hono } from 'hono';
import type { Services } from '../domain/context.ts';
import { DomainError } from '../domain/kernel/errors.ts';
import { registry as defaultRegistry } from '../registry/index.ts';
import type { Registry } from '../registry/build-registry.ts';
import type { RouteModule } from '../http/app-env.ts';
import { errorResponse } from '../http/error-response.ts';
import { securityHeaders } from '../http/security-headers.ts';
import type { AppEnv } from '../http/app-env.ts';
import { DISCOVERY_PATHS } from './discovery-paths.ts';
import { loadScalarBundle, renderDocsPage } from './docs-page.ts';
import { renderErrorsPage } from './errors-page.ts';
import { renderLlmsTxt } from './llms-txt.ts';
import { buildOpenApiDocument, OPENAPI_EXAMPLES, type OpenApiExamples } from './openapi.ts';
import { renderReferenceDocs } from './reference-docs.ts';
import { renderSecurityTxt } from './security-txt.ts';
import { buildSkills, skillsIndexV1, skillsIndexV2 } from './skills.ts';
import { renderCapabilityPage } from './capability-page.ts';
import { CAPABILITY_DOCS_PREFIX, localCapabilities } from '../registry/capabilities.ts';
import { once } from '../domain/kernel/once.ts';
import { negotiate } from '../pipeline/negotiate.ts';
import { homeHtml, homeJson } from './home-page.ts';

/**
 * The discovery surface as a RouteModule: /api/v1/openapi.json, /llms.txt, security.txt, the
 * skills indexes and /docs (capability lookups are registry operations). Everything is generated from the operation
 * list on first use and kept for the life of the process; base URLs come from PUBLIC_BASE_URL.
 */

export interface DiscoveryOptions {
  registry?: Registry;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** What `GET /` offers; JSON first, so a missing Accept or `*\/*` (curl) gets JSON, and a browser's `text/html` the page. */
const HOME_TYPES = ['application/json', 'text/html'] as const;
const TEXT_TYPE = 'text/plain; charset=utf-8';
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';
/** Discovery files change only with a deploy; a short cache spares repeat fetches by agents. */
const DISCOVERY_CACHE = 'public, max-age=300';

export function createDiscoveryRoutes(options: DiscoveryOptions = {}): RouteModule {
  return (app: Hono<AppEnv>, services: Services) => {
    const registry = options.registry ?? defaultRegistry;
    const operations = registry.operations;
    const base = services.config.PUBLIC_BASE_URL;

    const openApiJson = Object.fromEntries(
      OPENAPI_EXAMPLES.map((examples) => [examples, once(() => JSON.stringify(buildOpenApiDocument(operations, { publicBaseUrl: base, examples })))]),
    ) as Record<OpenApiExamples, () => string>;
    const skills = once(() => buildSkills(operations, base));
    const llmsTxt = once(() => renderLlmsTxt(operations, skills(), base));
    const skillsV1 = once(() => JSON.stringify(skillsIndexV1(skills())));
    const skillsV2 = once(() => JSON.stringify(skillsIndexV2(skills(), base)));
    const referenceDocs = once(() => renderReferenceDocs(operations));
    const capabilities = once(() => localCapabilities(operations));
    const bundle = once(loadScalarBundle);
    const errorsPage = once(() => renderErrorsPage(operations, base));
    const docsPage = once(() => renderDocsPage(bundle()?.path ?? `${DISCOVERY_PATHS.docsAssets}/scalar-not-installed.js`));

    // Public discovery files: the API's security headers without X-Robots-Tag (spec Authentication 9).
    const publicHeaders = securityHeaders({ robotsTag: false });
    const send = (c: Context<AppEnv>, body: string, contentType: string): Response => {
      c.header('Cache-Control', DISCOVERY_CACHE);
      // Read-only public documents: browser-based agents may fetch them from any origin.
      c.header('Access-Control-Allow-Origin', '*');
      return c.body(body, 200, { 'Content-Type': contentType });
    };
    // An unknown file under a known folder is an unknown route: the answer names what exists there.
    const notFound = (c: Context<AppEnv>, what: string, available: Iterable<string> = []): Response =>
      errorResponse(c, new DomainError('ROUTE_NOT_FOUND', { message: `No such ${what}.`, validAlternatives: [...available] }), base);

    // The base URL: a person opening it in a browser gets links (HTML); a program, the same as JSON.
    app.get(DISCOVERY_PATHS.home, publicHeaders, (c) => {
      c.header('Vary', 'Accept');
      return negotiate(HOME_TYPES, c.req.header('Accept')) === 'text/html' ? c.html(homeHtml(base)) : send(c, JSON.stringify(homeJson(base)), JSON_TYPE);
    });
    app.get(DISCOVERY_PATHS.openapi, publicHeaders, (c) => {
      const examples = openApiExamplesOf(c.req.queries());
      if (examples instanceof DomainError) return errorResponse(c, examples, base);
      return send(c, openApiJson[examples](), JSON_TYPE);
    });
    app.get(DISCOVERY_PATHS.llmsTxt, publicHeaders, (c) => send(c, llmsTxt(), TEXT_TYPE));
    app.get(DISCOVERY_PATHS.securityTxt, publicHeaders, (c) => send(c, renderSecurityTxt(base, services.now()), TEXT_TYPE));
    app.get(DISCOVERY_PATHS.skillsIndex, publicHeaders, (c) => send(c, skillsV1(), JSON_TYPE));
    app.get(DISCOVERY_PATHS.agentSkillsIndex, publicHeaders, (c) => send(c, skillsV2(), JSON_TYPE));
    for (const dir of [DISCOVERY_PATHS.skillsDir, DISCOVERY_PATHS.agentSkillsDir]) {
      app.get(`${dir}/:name/:file`, publicHeaders, (c) => {
        const skill = skills().find((candidate) => candidate.name === c.req.param('name'));
        const content = skill?.files.get(c.req.param('file'));
        if (content !== undefined) return send(c, content, MARKDOWN_TYPE);
        const available = skill ? [...skill.files.keys()].map((file) => `${dir}/${skill.name}/${file}`) : skills().map((s) => `${dir}/${s.name}/`);
        return notFound(c, 'skill file', available);
      });
    }
    app.get(`${DISCOVERY_PATHS.referenceDocs}/:file`, publicHeaders, (c) => {
      const content = referenceDocs().get(c.req.param('file'));
      if (content !== undefined) return send(c, content, MARKDOWN_TYPE);
      return notFound(
        c,
        'reference page',
        [...referenceDocs().keys()].map((file) => `${DISCOVERY_PATHS.referenceDocs}/${file}`),
      );
    });

    // Each capability record's docsPath resolves here (by any id the lookup accepts).
    app.get(`${CAPABILITY_DOCS_PREFIX}/:capabilityId`, publicHeaders, (c) => {
      const record = capabilities().find(c.req.param('capabilityId'));
      const op = record && registry.byId(record.operationId);
      return record && op ? send(c, renderCapabilityPage(record, op, base), MARKDOWN_TYPE) : notFound(c, 'capability');
    });

    if (!bundle()) {
      services.logger.warn(`${DISCOVERY_PATHS.docsPage} cannot render: the @scalar/api-reference browser bundle is not installed`);
    }
    app.get(DISCOVERY_PATHS.docsPage, publicHeaders, async (c) => {
      const page = await docsPage();
      c.header('Content-Security-Policy', page.contentSecurityPolicy);
      return c.html(page.html);
    });
    app.get(DISCOVERY_PATHS.errorsPage, publicHeaders, (c) => {
      const page = errorsPage();
      c.header('Content-Security-Policy', page.contentSecurityPolicy);
      c.header('Cache-Control', DISCOVERY_CACHE);
      return c.html(page.html);
    });
    app.get(`${DISCOVERY_PATHS.docsAssets}/:file`, publicHeaders, (c) => {
      const asset = bundle();
      if (!asset || c.req.path !== asset.path) return notFound(c, 'asset');
      // Content-addressed name: the bytes behind it never change.
      c.header('Cache-Control', 'public, max-age=31536000, immutable');
      return c.body(new Uint8Array(asset.body), 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
    });

    // Wrong methods on these paths answer 405 with Allow, as registry routes do.
    const methodNotAllowed = (c: Context<AppEnv>): Response => {
      c.header('Allow', 'GET');
      return errorResponse(c, new DomainError('METHOD_NOT_ALLOWED', { message: 'Use GET on this path.' }), base);
    };
    for (const path of [
      DISCOVERY_PATHS.home,
      DISCOVERY_PATHS.openapi,
      DISCOVERY_PATHS.llmsTxt,
      DISCOVERY_PATHS.securityTxt,
      DISCOVERY_PATHS.skillsIndex,
      DISCOVERY_PATHS.agentSkillsIndex,
      DISCOVERY_PATHS.docsPage,
      DISCOVERY_PATHS.errorsPage,
    ]) {
      app.on(['POST', 'PUT', 'PATCH', 'DELETE'], path, publicHeaders, methodNotAllowed);
    }
  };
}

/**
 * openapi.json's one query parameter, `examples` (`contract`, the default, or `all`); anything
 * else is refused, naming what is accepted.
 */
function openApiExamplesOf(query: Record<string, string[]>): OpenApiExamples | DomainError {
  const accepted = OPENAPI_EXAMPLES.map((value) => `examples=${value}`);
  const unknown = Object.keys(query).filter((name) => name !== 'examples');
  const values = query.examples ?? [];
  const [value] = values;
  if (unknown.length > 0 || values.length > 1 || (value !== undefined && !(OPENAPI_EXAMPLES as readonly string[]).includes(value))) {
    const problem =
      unknown.length > 0
        ? `Unknown query parameter ${unknown.map((name) => `'${name}'`).join(', ')}`
        : `'examples' must be ${OPENAPI_EXAMPLES.join(' or ')}, once`;
    return new DomainError('VALIDATION_ERROR', {
      message: `${problem}; openapi.json accepts only examples=all (every body's example) or examples=contract (the default).`,
      details: [{ path: unknown.length > 0 ? `query.${unknown[0]}` : 'query.examples', message: problem }],
      validAlternatives: accepted,
    });
  }
  return (value as OpenApiExamples | undefined) ?? 'contract';
}

/** The module cli/build-app.ts mounts: the real registry. */
export const discoveryRoutes: RouteModule = createDiscoveryRoutes();
