import { errorsOf } from '../registry/errors-of.ts';
import { createHash } from 'node:crypto';
import type { ErrorCode } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG } from '../registry/error-catalog.ts';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER } from '../domain/webhooks/signature-header.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/kernel/pagination.ts';
import type { Group } from '../registry/define-operation.ts';
import { curlExample } from './command-examples.ts';
import { connectionGuide, renderConnectionGuide } from './connect-guide.ts';
import { groupInfo, groupsInUse } from './groups.ts';
import { describeType, objectProperties, resolveRef, toJsonSchema } from './json-schema.ts';
import { DISCOVERY_PATHS } from './discovery-paths.ts';
import { API_PREFIX } from '../registry/api-prefix.ts';
import { DISCOVERY_TOOLS, MCP_OPTIONS, mcpOptionLines } from '../registry/mcp-options.ts';
import { fullPath, isPaginated, isPublic, isTenantScoped, requiredScope, takesIdempotencyKey, type DescribedOperation } from './operation-traits.ts';
import { IDEMPOTENT_REPLAYED_HEADER } from '../http/response-headers.ts';

/**
 * Agent skills, one per registry group: a SKILL.md (agentskills.io format: YAML front matter with
 * name and description, then instructions) that says how to authenticate, call each operation,
 * paginate, retry writes safely, verify webhook signatures and recover from each error code.
 * Published through the Agent Skills discovery indexes (v0.1.0 and v0.2.0).
 */

export interface Skill {
  /** 1-64 lowercase letters, digits and single hyphens; also the directory name. */
  name: string;
  /** At most 1024 characters (Agent Skills spec); what an agent reads to decide to load it. */
  description: string;
  /** Path inside the skill directory → content. SKILL.md comes first. */
  files: Map<string, string>;
}

export const SKILL_FILE = 'SKILL.md';
const SKILL_NAME_PREFIX = 'accounting-';
const MAX_DESCRIPTION = 1024;
/** Groups whose skill explains how to verify a webhook delivery. */
const SIGNATURE_GUIDE_GROUPS: ReadonlySet<Group> = new Set(['webhooks']);

export const skillNameOf = (group: Group): string => `${SKILL_NAME_PREFIX}${group.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

export function buildSkills(operations: readonly DescribedOperation[], publicBaseUrl: string): Skill[] {
  const groups = groupsInUse(operations).map((group) => {
    const ops = operations.filter((op) => op.group === group);
    const name = skillNameOf(group);
    const description = skillDescription(group, ops);
    return { name, description, files: new Map([[SKILL_FILE, renderSkill(name, description, group, ops, publicBaseUrl)]]) };
  });
  return [...groups, mcpSkill(publicBaseUrl)];
}

/** The skill an agent reads before connecting over MCP: the endpoint and the options it takes. */
export const MCP_SKILL_NAME = `${SKILL_NAME_PREFIX}mcp`;

function mcpSkill(base: string): Skill {
  const endpoint = `${base}${DISCOVERY_PATHS.mcp}`;
  const tools = Object.values(DISCOVERY_TOOLS);
  const description =
    `Connecting an agent to the Accounting Service over MCP (${endpoint}, or the stdio server): discovery mode ` +
    `(?${MCP_OPTIONS.mode.query}=discover: ${tools.join(', ')} — a few hundred tokens instead of the whole tool list), toolsets, ` +
    'read-only mode and tool-name variants. Use before connecting, or when the tool list is too large for the context. ' +
    connectionGuide(base).summary;
  const text = [
    `---\nname: ${MCP_SKILL_NAME}\ndescription: ${JSON.stringify(description)}\n---`,
    '# Connecting over MCP: Accounting Service API',
    `- Streamable HTTP: \`POST ${endpoint}\` with \`Authorization: Bearer <API_KEY>\` or an OAuth access token (below; stateless; JSON answers).`,
    '- stdio: `API_KEY=sk_… node_modules/.bin/tsx cli/mcp.ts` from a checkout, with the flags below.',
    '## Connecting a hosted agent (OAuth 2.1)',
    renderConnectionGuide(base),
    '## Options',
    'Query parameters on the endpoint (flags on the stdio server); anything else is refused, naming these:',
    mcpOptionLines().join('\n'),
    '## Discovery mode, step by step',
    [
      `1. \`${DISCOVERY_TOOLS.search}\` {"query": "journal entries"} → names, summaries and risk, best first.`,
      `2. \`${DISCOVERY_TOOLS.describe}\` {"name": "<a name from step 1>"} → its arguments, an example, the scope it needs.`,
      `3. \`${DISCOVERY_TOOLS.invoke}\` {"name": "<name>", "arguments": {…}} → exactly what the operation's own tool returns.`,
      'Start with `companies.list` for company ids; never guess ids. A failed call returns `code`, `recovery_hint` and `valid_alternatives`: follow the hint.',
    ].join('\n'),
  ].join('\n\n');
  return { name: MCP_SKILL_NAME, description, files: new Map([[SKILL_FILE, `${text}\n`]]) };
}

function skillDescription(group: Group, ops: readonly DescribedOperation[]): string {
  const info = groupInfo(group);
  const text = `${info.title} on the Accounting Service REST API: ${ops.map((op) => op.summary.toLowerCase()).join('; ')}. ${info.description} Use when a task needs these operations.`;
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

function renderSkill(name: string, description: string, group: Group, ops: readonly DescribedOperation[], base: string): string {
  const info = groupInfo(group);
  const api = `${base}${API_PREFIX}`;
  const sections = [
    // JSON strings are valid YAML scalars, so the front matter needs no YAML library.
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---`,
    `# ${info.title}: Accounting Service API`,
    info.description,
    [
      '## Before you call',
      '',
      `- Base URL: \`${api}\`. The full description is \`${base}${DISCOVERY_PATHS.openapi}\`; the MCP server (same API key) is at \`${base}${DISCOVERY_PATHS.mcp}\`.`,
      ops.every(isPublic)
        ? '- These operations are public: no API key is needed (a bearer key, if sent, only attributes the call).'
        : '- Authenticate every call with `Authorization: Bearer <API_KEY>`, or an OAuth access token a person granted you (a 401 names the metadata to start from). A `sk_test_…` key reaches sandbox companies only, a `sk_live_…` key live ones. Each operation below names the scope the key must hold.',
      ...(ops.some(isTenantScoped)
        ? ['- Company ids come from `GET /api/v1/companies`; never guess an id. A company you cannot access answers 404, exactly like one that does not exist.']
        : []),
      '- Success bodies are `{ "data": …, "meta": { "request_id", … } }`; failures are `{ "error": { "code", "recovery_hint", … } }`. Quote `request_id` when asking for support.',
    ].join('\n'),
    ['## Operations', ...ops.map((op) => renderOperation(op, api))].join('\n\n'),
  ];
  if (ops.some(isPaginated)) sections.push(PAGINATION);
  if (ops.some((op) => takesIdempotencyKey(op) || op.dryRun)) sections.push(SAFE_WRITES);
  if (SIGNATURE_GUIDE_GROUPS.has(group)) sections.push(SIGNATURES);
  sections.push(renderRecovery(ops));
  return `${sections.join('\n\n')}\n`;
}

function renderOperation(op: DescribedOperation, api: string): string {
  const traits = [
    isPublic(op) ? 'public' : `scope \`${requiredScope(op) ?? 'any key'}\``,
    `risk ${op.risk}`,
    op.sideEffects.every((effect) => effect === 'none') ? 'read-only' : `side effects: ${op.sideEffects.join(', ')}`,
    ...(op.idempotencyKey !== 'none' ? [`Idempotency-Key ${op.idempotencyKey}`] : []),
    ...(op.dryRun ? ['supports `?dry_run=true`'] : []),
  ];
  const lines = [`### ${op.summary}`, '', `\`${op.method} ${fullPath(op)}\` (${traits.join(', ')})`, '', op.description];
  const parameters = parameterLines(op);
  if (parameters.length > 0) lines.push('', 'Parameters:', ...parameters);
  const fields = bodyFieldLines(op);
  if (fields.length > 0) lines.push('', 'Body fields:', ...fields);
  lines.push('', '```sh', curlExample(op, api), '```');
  return lines.join('\n');
}

function parameterLines(op: DescribedOperation): string[] {
  const lines: string[] = [];
  for (const [location, schema] of [
    ['path', op.input.params],
    ['query', op.input.query],
  ] as const) {
    if (!schema) continue;
    for (const { name, schema: property, required } of objectProperties(toJsonSchema(schema, 'input', op.id).schema)) {
      const description = typeof property.description === 'string' ? `: ${property.description}` : '';
      lines.push(`- \`${name}\` (${location}${location === 'path' || required ? ', required' : ''})${description}`);
    }
  }
  return lines;
}

function bodyFieldLines(op: DescribedOperation): string[] {
  if (!op.input.body) return [];
  const converted = toJsonSchema(op.input.body, 'input', `${op.id}Body`);
  return objectProperties(resolveRef(converted.schema, converted.defs)).map(({ name, schema, required }) => {
    const description = typeof schema.description === 'string' ? `: ${schema.description}` : '';
    return `- \`${name}\` (${describeType(schema)}${required ? ', required' : ''})${description}`;
  });
}

const PAGINATION = [
  '## Paginate',
  '',
  `Cursor lists return at most \`limit\` items (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}). While \`meta.pagination.has_more\` is true, request the next page with \`?cursor=<meta.pagination.next_cursor>\` and the same other parameters. Cursors are opaque: never build or edit one. A stale or malformed cursor restarts at the first page instead of failing, so stop when \`has_more\` is false rather than counting pages.`,
].join('\n');

const SAFE_WRITES = [
  '## Retry writes safely',
  '',
  '- Send an `Idempotency-Key` header (a fresh UUID per logical request) on writes that take one. If the answer is lost, retry with the same key and body: ' +
    `the stored result is replayed with \`${IDEMPOTENT_REPLAYED_HEADER}: true\` instead of writing twice.`,
  '- Reusing a key with a different body answers 422 `IDEMPOTENCY_KEY_REUSED`; a retry while the first request still runs answers 409 `IDEMPOTENCY_IN_PROGRESS` (wait, then retry with the same key).',
  '- Operations that support it accept `?dry_run=true`: every check runs and the would-be result comes back with `meta.dry_run: true`, but nothing is written. Use it to validate before a risky write.',
].join('\n');

const SIGNATURES = [
  '## Verify webhook signatures',
  '',
  `Each delivery is an HTTP POST of a JSON event with the header \`${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>\`. To verify it:`,
  '',
  '1. Read the raw request body as bytes, before any JSON parsing.',
  '2. Compute HMAC-SHA256 over `<t>.<raw body>` with the webhook secret (its UTF-8 bytes) as the key; hex-encode it.',
  '3. Compare it with each `v1` value in constant time; accept only a match.',
  `4. Reject a \`t\` more than ${DEFAULT_TOLERANCE_SECONDS} seconds away from your clock (replays).`,
  '5. Answer 2xx quickly; the event `id` stays the same across retries, so use it to drop duplicates. Answering 410 disables the webhook.',
  '',
  "In Node.js, `verifySignature(header, rawBody, secret)` from this service's dispatcher/sign.ts does all of this and never throws:",
  '',
  '```ts',
  "const result = verifySignature(request.headers['x-service-signature'], rawBody, process.env.WEBHOOK_SECRET);",
  'if (!result.ok) return respond(400); // result.reason says why',
  '```',
  '',
  'The secret is returned only once, by the create call; store it then. Deliveries are retried with backoff for about 72 hours.',
].join('\n');

function renderRecovery(ops: readonly DescribedOperation[]): string {
  const codes = [...new Set(ops.flatMap(errorsOf))].sort((a, b) => ERROR_CATALOG[a].status - ERROR_CATALOG[b].status) as ErrorCode[];
  return [
    '## When a call fails',
    '',
    'Read `error.code` and follow its `recovery_hint`:',
    '',
    '| Code | Status | What to do |',
    '|---|---|---|',
    ...codes.map((code) => `| \`${code}\` | ${ERROR_CATALOG[code].status} | ${ERROR_CATALOG[code].recoveryHint.replace(/\|/g, '\\|')} |`),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Discovery indexes.
// ---------------------------------------------------------------------------------------------

export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export const sha256Digest = (content: string): string => `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;

/** v0.1.0: names, descriptions and the files served under /.well-known/skills/<name>/. */
export function skillsIndexV1(skills: readonly Skill[]): { skills: { name: string; description: string; files: string[] }[] } {
  return { skills: skills.map((skill) => ({ name: skill.name, description: skill.description, files: [...skill.files.keys()] })) };
}

/** v0.2.0: one entry per SKILL.md with its absolute URL and the digest of the bytes served there. */
export function skillsIndexV2(skills: readonly Skill[], publicBaseUrl: string) {
  return {
    $schema: AGENT_SKILLS_SCHEMA,
    skills: skills.map((skill) => ({
      name: skill.name,
      type: 'skill-md' as const,
      description: skill.description,
      url: `${publicBaseUrl}${DISCOVERY_PATHS.agentSkillsDir}/${skill.name}/${SKILL_FILE}`,
      digest: sha256Digest(skill.files.get(SKILL_FILE) ?? ''),
    })),
  };
}
