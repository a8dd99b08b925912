import { API_PREFIX } from '../../registry/api-prefix.ts';
import { CLI_EXIT_TEXT, CLI_NAME } from '../../registry/cli-command.ts';
import { isPublic, requiredScope } from '../../registry/define-operation.ts';
import { GLOBAL_FLAGS, globalFlagsOf, type CommandSpec, type CommandTable, type FieldFlag, type GlobalFlag } from './spec.ts';

/** Help text generated from the operations' summaries, descriptions and schemas. */

const ADMIN_NOTE = `Administration (users, companies, memberships, API keys) works on the database, not over HTTP: npm run admin -- --help`;

const EXIT_CODES_TEXT = CLI_EXIT_TEXT;

const ENVIRONMENT_TEXT = [
  'Environment:',
  '  ACCOUNTING_API_URL     API server (default http://localhost:3000); --base-url overrides',
  '  ACCOUNTING_API_KEY     API key (sk_test_… or sk_live_…); --api-key overrides',
  '  ACCOUNTING_COMPANY_ID  company used when --company is not given',
].join('\n');

function columns(rows: [string, string][], indent = 2): string {
  const width = Math.min(Math.max(...rows.map(([left]) => left.length)), 34);
  return rows.map(([left, right]) => `${' '.repeat(indent)}${left.padEnd(width)}  ${right}`.trimEnd()).join('\n');
}

export function rootHelp(table: CommandTable): string {
  const commands: [string, string][] = table.commands.map((spec) => [`${spec.group} ${spec.name}`, spec.op.summary]);
  commands.push(['listen', 'Forward new events, signed like webhook deliveries, to a local receiver']);
  commands.push(['completion <bash|zsh|fish>', 'Print a shell completion script (see README, "Shell completion")']);
  return [
    `${CLI_NAME}: the accounting API from the command line. Every command is one API operation, sent over HTTP.`,
    '',
    `Usage: ${CLI_NAME} <group> <command> [flags]`,
    `       ${CLI_NAME} <group> <command> --help`,
    '',
    'Commands:',
    columns(commands),
    '',
    'Flags on every command:',
    columns((['json', 'output', 'base-url', 'api-key', 'help'] as const).map((flag) => [globalUsage(flag), GLOBAL_FLAGS[flag].description])),
    '',
    ENVIRONMENT_TEXT,
    '',
    EXIT_CODES_TEXT,
    ADMIN_NOTE,
    '',
  ].join('\n');
}

export function groupHelp(table: CommandTable, group: string): string {
  const commands = table.commands.filter((spec) => spec.group === group);
  return [
    `Usage: ${CLI_NAME} ${group} <command> [flags]`,
    '',
    'Commands:',
    columns(commands.map((spec) => [spec.name, spec.op.summary])),
    '',
    `Run ${CLI_NAME} ${group} <command> --help for its flags.`,
    '',
  ].join('\n');
}

const globalUsage = (flag: GlobalFlag): string => (GLOBAL_FLAGS[flag].kind === 'boolean' ? `--${flag}` : `--${flag} <${flag === 'output' ? 'file' : 'value'}>`);

/** `<uuid>`, `<integer>`, `<a|b|c>` … from the field's JSON Schema. */
export function placeholder(flag: FieldFlag): string {
  if (flag.enumValues && flag.enumValues.length <= 4) return `<${flag.enumValues.join('|')}>`;
  if (flag.kind === 'list') return `<${flag.itemKind ?? 'value'},…>`;
  if (flag.kind === 'file') return '<path>';
  if (flag.kind === 'string') return `<${flag.format ?? (flag.enumValues ? 'value' : 'string')}>`;
  return `<${flag.kind}>`;
}

const usageOf = (flag: FieldFlag): string => (flag.kind === 'boolean' ? `--${flag.flag}` : `--${flag.flag} ${placeholder(flag)}`);

function describeFlag(spec: CommandSpec, flag: FieldFlag, defaultCompany: boolean): string {
  const parts = [flag.description];
  if (flag.enumValues && flag.enumValues.length > 4) parts.push(`One of: ${flag.enumValues.join(', ')}.`);
  if (flag.kind === 'list') parts.push('Comma-separated or repeated.');
  if (flag.kind === 'json') parts.push('A JSON value.');
  if (flag.kind === 'boolean') parts.push(`--no-${flag.flag} for false.`);
  if (flag.nullable) parts.push('"null" clears it.');
  if (flag.defaultValue !== undefined) parts.push(`Default: ${JSON.stringify(flag.defaultValue)}.`);
  if (flag.location === 'path' && flag.field === 'companyId' && defaultCompany) parts.push('Default: $ACCOUNTING_COMPANY_ID.');
  if (spec.paginated && flag.field === 'limit') parts.push('--all uses the maximum.');
  return parts.filter(Boolean).join(' ');
}

export function commandHelp(spec: CommandSpec): string {
  const { op } = spec;
  const required = spec.flags.filter((flag) => flag.required);
  const optional = spec.flags.filter((flag) => !flag.required);
  const scope = isPublic(op) ? 'public, no key needed' : `scope ${requiredScope(op) ?? 'any key'}`;
  const idempotency =
    op.idempotencyKey === 'required'
      ? 'Required by this operation: when absent one is generated and printed on stderr; reuse it to retry safely.'
      : GLOBAL_FLAGS['idempotency-key'].description;
  const requestFlags = globalFlagsOf(spec).filter((flag) => ['data', 'dry-run', 'idempotency-key', 'all', 'wait'].includes(flag));
  const lines = [
    `${CLI_NAME} ${spec.group} ${spec.name}: ${op.summary}`,
    '',
    op.description,
    '',
    `Usage: ${CLI_NAME} ${spec.group} ${spec.name}${required.map((flag) => ` ${usageOf(flag)}`).join('')}${optional.length + requestFlags.length > 0 ? ' [flags]' : ''}`,
  ];
  if (required.length > 0) lines.push('', 'Required:', columns(required.map((flag) => [usageOf(flag), describeFlag(spec, flag, true)])));
  if (optional.length > 0) lines.push('', 'Optional:', columns(optional.map((flag) => [usageOf(flag), describeFlag(spec, flag, true)])));
  if (requestFlags.length > 0) {
    lines.push(
      '',
      'Request:',
      columns(requestFlags.map((flag) => [globalUsage(flag), flag === 'idempotency-key' ? idempotency : GLOBAL_FLAGS[flag].description])),
    );
  }
  lines.push(
    '',
    'Output and connection:',
    columns((['json', 'output', 'accept', 'base-url', 'api-key'] as const).map((flag) => [globalUsage(flag), GLOBAL_FLAGS[flag].description])),
    '',
    `API: ${op.method} ${API_PREFIX}${op.path} (${scope}; operation ${op.id})`,
    EXIT_CODES_TEXT,
    '',
  );
  return lines.join('\n');
}
