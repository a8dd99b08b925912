import {
  ErrorCode,
  McpError,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { IDEMPOTENCY_ARG, DRY_RUN_ARG, type ToolEntry } from './tools.ts';
import { closest } from './map-error.ts';

/**
 * Prompts and resources. Their sources are the published discovery artefacts — the skills, the
 * event catalogue page, the OpenAPI document — handed in by the entry point that assembles the
 * surfaces (cli/), so mcp/ never imports discovery/ and both read one source.
 */

/** One published skill, as the skills index serves it. */
export interface SkillSource {
  name: string;
  description: string;
  /** SKILL.md as published. */
  text: string;
  /** The registry operations the skill walks through (their tools are named in the prompt). */
  operationIds: readonly string[];
}

/** A document served as a resource. */
export interface ResourceSource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  read(): string;
}

export interface McpContentSources {
  skills(): readonly SkillSource[];
  resources(): readonly ResourceSource[];
}

export interface McpContent {
  listPrompts(): ListPromptsResult;
  getPrompt(name: string, args: Record<string, string>): GetPromptResult;
  listResources(): ListResourcesResult;
  listResourceTemplates(): ListResourceTemplatesResult;
  readResource(uri: string): ReadResourceResult;
}

/** -32002: the MCP spec's code for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

export interface ContentView {
  /** Tools of this connection by operation id, to name them in the prompts. */
  toolFor(operationId: string): ToolEntry | undefined;
  /** Discovery mode: operations are reached through invoke_operation. */
  discover: boolean;
}

/**
 * The prompt is the published skill, prefaced by what differs over MCP: the tool each operation
 * is, arguments in place of headers and query flags. Stateless and cheap, so built per request.
 */
export function mcpContent(sources: McpContentSources, view: ContentView): McpContent {
  const findSkill = (name: string): SkillSource => {
    const skill = sources.skills().find((s) => s.name === name);
    if (skill) return skill;
    throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}.`, {
      recovery_hint: 'Call prompts/list for the prompts this server offers.',
      valid_alternatives: closest(
        name,
        sources.skills().map((s) => s.name),
      ),
    });
  };
  return {
    listPrompts: () => ({ prompts: sources.skills().map((skill) => ({ name: skill.name, description: skill.description })) }),
    getPrompt: (name) => {
      const skill = findSkill(name);
      return {
        description: skill.description,
        messages: [{ role: 'user', content: { type: 'text', text: `${preface(skill, view)}\n\n${skill.text}` } }],
      };
    },
    listResources: () => ({
      resources: sources.resources().map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    }),
    // Extension point: binary downloads (document bytes, report PDFs) become templates here once
    // the registry declares binary responses; none does yet.
    listResourceTemplates: () => ({ resourceTemplates: [] }),
    readResource: (uri) => {
      const resource = sources.resources().find((r) => r.uri === uri);
      if (!resource) {
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}.`, {
          recovery_hint: 'Call resources/list for the resources this server offers.',
          valid_alternatives: sources.resources().map((r) => r.uri),
        });
      }
      return { contents: [{ uri, mimeType: resource.mimeType, text: resource.read() }] };
    },
  };
}

function preface(skill: SkillSource, view: ContentView): string {
  const tools = skill.operationIds.map((id) => view.toolFor(id)).filter((e): e is ToolEntry => e !== undefined);
  const lines = ['You are connected to this API over MCP. The REST details below (curl, headers, URLs) are for HTTP clients; over MCP:'];
  if (tools.length > 0) {
    const named = tools.map((e) => `${e.op.summary} → \`${e.name}\``).join('; ');
    lines.push(
      view.discover
        ? `- Operations: ${named}. Call each through \`invoke_operation\` with that name; \`describe_operation\` shows its arguments.`
        : `- Operations are tools: ${named}.`,
    );
  }
  lines.push(
    '- Arguments are the path, query and body fields in snake_case (`company_id`, …), all in one object.',
    `- Send \`${IDEMPOTENCY_ARG}\` and \`${DRY_RUN_ARG}\` as arguments instead of the Idempotency-Key header and \`?dry_run=true\`.`,
    '- A failed call returns an error object with `code`, `recovery_hint` and `valid_alternatives`: follow the hint.',
  );
  return lines.join('\n');
}
