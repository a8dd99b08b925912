import { ERROR_DOCS_PATH } from '../registry/error-catalog.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';

/** Where the discovery surface serves each document, relative to PUBLIC_BASE_URL. */
export const DISCOVERY_PATHS = {
  /** The base URL itself: links to everything below, as HTML or JSON. */
  home: '/',
  openapi: `${API_PREFIX}/openapi.json`,
  capabilities: `${API_PREFIX}/capabilities`,
  llmsTxt: '/llms.txt',
  securityTxt: '/.well-known/security.txt',
  /** Agent Skills discovery v0.1.0 (`files` as names) … */
  skillsIndex: '/.well-known/skills/index.json',
  skillsDir: '/.well-known/skills',
  /** … and v0.2.0 (`$schema`, `url`, `digest`), which newer clients try first. */
  agentSkillsIndex: '/.well-known/agent-skills/index.json',
  agentSkillsDir: '/.well-known/agent-skills',
  /** The interactive reference (HTML) and the generated Markdown reference. */
  docsPage: '/docs',
  /** Every error code's cause and fix; the target of each error's docs_url. */
  errorsPage: ERROR_DOCS_PATH,
  docsAssets: '/docs/assets',
  referenceDocs: '/docs/reference',
  mcp: '/mcp',
} as const;
