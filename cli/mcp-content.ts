import type { Services } from '../domain/context.ts';
import { buildOpenApiDocument } from '../discovery/openapi.ts';
import { EVENTS_DOC, renderReferenceDocs } from '../discovery/reference-docs.ts';
import { buildSkills, SKILL_FILE } from '../discovery/skills.ts';
import type { McpContentSources, ResourceSource, SkillSource } from '../mcp/content.ts';
import type { Operation } from '../registry/define-operation.ts';
import { registry } from '../registry/index.ts';
import { once } from '../domain/kernel/once.ts';

/** Resource URIs: stable names, independent of where the server runs. */
export const MCP_RESOURCE_URIS = { events: 'accounting://docs/event-types', openapi: 'accounting://openapi.json' } as const;

/**
 * What the MCP surface serves besides tools, from the same builders as the discovery surface: each
 * published skill is a prompt, and the event catalogue page and the OpenAPI document are resources.
 * Assembled here, in the entry-point layer, so mcp/ and discovery/ stay independent.
 */
export function mcpContentSources(services: Services, operations: readonly Operation[] = registry.operations): McpContentSources {
  const base = services.config.PUBLIC_BASE_URL;
  const skills = once((): SkillSource[] =>
    buildSkills(operations, base).map((skill) => {
      const text = skill.files.get(SKILL_FILE) ?? '';
      // The operations a skill walks through are its `### <summary>` sections.
      const headings = new Set([...text.matchAll(/^### (.+)$/gm)].map((m) => (m[1] as string).trim()));
      return { name: skill.name, description: skill.description, text, operationIds: operations.filter((op) => headings.has(op.summary)).map((op) => op.id) };
    }),
  );
  const events = once(() => renderReferenceDocs(operations).get(EVENTS_DOC) ?? '');
  const openapi = once(() => JSON.stringify(buildOpenApiDocument(operations, { publicBaseUrl: base })));
  const resources: ResourceSource[] = [
    {
      uri: MCP_RESOURCE_URIS.events,
      name: 'event-types',
      title: 'Webhook event catalogue',
      description: 'Every event type a webhook can subscribe to: what it means, who may receive it, its payload and an example.',
      mimeType: 'text/markdown',
      read: events,
    },
    {
      uri: MCP_RESOURCE_URIS.openapi,
      name: 'openapi',
      title: 'OpenAPI 3.1 document',
      description: "The REST API's full description: every operation, schema, error and example.",
      mimeType: 'application/json',
      read: openapi,
    },
  ];
  return { skills, resources: () => resources };
}
