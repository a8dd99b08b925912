import type { CapabilityRecord } from '../domain/capabilities/record.ts';
import type { Group } from '../registry/define-operation.ts';
import { DISCOVERY_PATHS } from './discovery-paths.ts';
import { groupDocFile } from './reference-docs.ts';
import { renderConnectionGuide } from './connect-guide.ts';

/**
 * The page a capability record's `docsPath` points at: what the capability does and where to call
 * it (REST, MCP tool names), linking to the full reference, and how an agent connects. Markdown,
 * like the reference pages.
 */
export function renderCapabilityPage(record: CapabilityRecord, op: { summary: string; description: string; group: Group }, base: string): string {
  const list = (items: readonly string[]): string => (items.length > 0 ? items.map((item) => `\`${item}\``).join(', ') : 'none');
  return [
    `# ${record.capabilityId}`,
    '',
    `${op.summary}. ${op.description}`,
    '',
    `- Operation id: \`${record.operationId}\` (owner: ${record.ownerProduct})`,
    `- Surfaces: ${record.surfaces.join(', ')}`,
    `- REST: ${list(record.apiEndpointRefs)}`,
    `- MCP tools: ${list(record.mcpToolRefs)}`,
    `- Risk: ${record.riskLevel ?? 'unclassified'}; side effects: ${(record.sideEffects ?? []).join(', ')}; idempotent: ${record.idempotent ?? 'unknown'}`,
    `- Reference: ${DISCOVERY_PATHS.referenceDocs}/${groupDocFile(op.group)}`,
    `- Record as JSON: ${DISCOVERY_PATHS.capabilities}/${record.capabilityId}`,
    '',
    '## Connecting an agent',
    '',
    renderConnectionGuide(base),
    '',
  ].join('\n');
}
