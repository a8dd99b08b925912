import { groupInfo, groupsInUse, EVENTS_TAG, serviceSummary } from './groups.ts';
import { DISCOVERY_TOOLS, MCP_OPTIONS, mcpOptionLines } from '../registry/mcp-options.ts';
import { ERRORS_DOC, EVENTS_DOC, INDEX_DOC, groupDocFile } from './reference-docs.ts';
import { DISCOVERY_PATHS } from './discovery-paths.ts';
import { VAT_BOXES_DOC } from './vat-boxes-doc.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { renderConnectionGuide } from './connect-guide.ts';
import type { Skill } from './skills.ts';
import type { DescribedOperation } from './operation-traits.ts';
import { openApiPath } from './openapi.ts';

/**
 * /llms.txt in the llmstxt.org format: an H1, a one-paragraph summary in a blockquote, then
 * sections of Markdown link lists. Every URL is built from PUBLIC_BASE_URL (spec
 * Authentication 7), never from the request.
 */
export function renderLlmsTxt(operations: readonly DescribedOperation[], skills: readonly Skill[], publicBaseUrl: string): string {
  const url = (path: string): string => `${publicBaseUrl}${path}`;
  const reference = (file: string): string => url(`${DISCOVERY_PATHS.referenceDocs}/${file}`);
  const lines = [
    '# Accounting Service API',
    '',
    `> ${serviceSummary(operations).replace(/\*\*/g, '')} ` +
      `Reach it over the JSON REST API or the MCP server. Authenticate with \`Authorization: Bearer <API_KEY>\`; company-scoped calls need a company id from \`GET ${API_PREFIX}/companies\`.`,
    '',
    `- Canonical API base URL: ${url(API_PREFIX)}`,
    `- MCP server (Streamable HTTP, same bearer API key): ${url(DISCOVERY_PATHS.mcp)}`,
    `- Security disclosure policy: ${url(DISCOVERY_PATHS.securityTxt)}`,
    '',
    // Details before the first H2 (llms.txt allows any Markdown but headings there): how to connect.
    renderConnectionGuide(publicBaseUrl),
    '',
    '## API',
    '',
    `- [OpenAPI 3.1 description](${url(DISCOVERY_PATHS.openapi)}): every operation with its schemas, scope, risk, idempotency, error codes and a worked example of each JSON request and 200 answer`,
    `- [OpenAPI 3.1 with every example](${url(openApiPath('all'))}): the same, with an example of every 201 and 202 answer, error code and event payload besides`,
    `- [Interactive API reference](${url(DISCOVERY_PATHS.docsPage)}): the description with every example, rendered for people`,
    `- [Capability records](${url(DISCOVERY_PATHS.capabilities)}): one record per operation; look one up at ${url(DISCOVERY_PATHS.capabilities)}/{capabilityId}`,
    '',
    '## MCP',
    '',
    `Connect to ${url(DISCOVERY_PATHS.mcp)} with the same bearer key. With every operation as a tool the list is large; ` +
      `\`${url(DISCOVERY_PATHS.mcp)}?${MCP_OPTIONS.mode.query}=discover\` offers three tools instead (${Object.values(DISCOVERY_TOOLS).join(', ')}). ` +
      'Query options (the stdio server `node_modules/.bin/tsx cli/mcp.ts` takes the same as flags):',
    '',
    ...mcpOptionLines(),
    '',
    '## Docs',
    '',
    `- [Reference index](${reference(INDEX_DOC)}): conventions (authentication, envelope, pagination, idempotency, dry runs) and every operation`,
    ...groupsInUse(operations).map((group) => `- [${groupInfo(group).title}](${reference(groupDocFile(group))}): ${groupInfo(group).description}`),
    `- [VAT return boxes](${reference(VAT_BOXES_DOC)}): how each box of the VAT return is computed from the ledger, and the VAT codes of accounts`,
    `- [Errors](${reference(ERRORS_DOC)}): every error code with its recovery hint`,
    `- [${EVENTS_TAG.title}](${reference(EVENTS_DOC)}): webhook event types, payloads and signature verification`,
    '',
    '## Agent skills',
    '',
    `- [Skills index](${url(DISCOVERY_PATHS.skillsIndex)}): Agent Skills discovery index (also at ${url(DISCOVERY_PATHS.agentSkillsIndex)})`,
    ...skills.map((skill) => `- [${skill.name}](${url(`${DISCOVERY_PATHS.skillsDir}/${skill.name}/SKILL.md`)}): ${skill.description}`),
    '',
    '## Security',
    '',
    `- [Security disclosure policy](${url(DISCOVERY_PATHS.securityTxt)}): how to report a vulnerability (RFC 9116)`,
  ];
  return `${lines.join('\n')}\n`;
}
