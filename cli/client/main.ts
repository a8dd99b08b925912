import { readFileSync } from 'node:fs';
import { API_VERSION } from '../../domain/kernel/version.ts';
import type { Operation } from '../../registry/define-operation.ts';
import { CLI_NAME } from '../../registry/cli-command.ts';
import { parseFlags, type FlagDefinition } from './args.ts';
import { completionScript } from './completion.ts';
import { CliError, EXIT, usageError } from './errors.ts';
import { commandHelp, groupHelp, rootHelp } from './help.ts';
import { ApiError } from './http.ts';
import { LISTEN_FLAGS, listen, listenHelp } from './listen.ts';
import { runCommand, type Io, type OutputOptions } from './run-command.ts';
import type { CommandInput } from './request.ts';
import { resolveSettings, type Settings } from './settings.ts';
import { GLOBAL_FLAGS, buildCommands, globalFlagsOf, type CommandSpec, type CommandTable } from './spec.ts';

/**
 * `accounting <group> <command> [flags]`: finds the command, parses its flags strictly, runs it
 * and turns every failure into a message on stderr and the exit code of its class.
 */

export interface MainIo extends Io {
  env: Record<string, string | undefined>;
  /** Ends `listen`; other commands finish on their own. */
  signal?: AbortSignal;
}

/** The administration tool's commands: named here only to point people at `npm run admin`. */
const ADMIN_COMMANDS = new Set(['user', 'company', 'membership', 'key']);

const definitionsFor = (spec: CommandSpec): Map<string, FlagDefinition> => {
  const definitions = new Map<string, FlagDefinition>();
  for (const flag of globalFlagsOf(spec)) definitions.set(flag, { boolean: GLOBAL_FLAGS[flag].kind === 'boolean' });
  for (const flag of spec.flags) definitions.set(flag.flag, { boolean: flag.kind === 'boolean', repeatable: flag.kind === 'list' });
  return definitions;
};

const ROOT_FLAGS = new Map<string, FlagDefinition>([
  ['help', { boolean: true }],
  ['version', { boolean: true }],
  ['json', { boolean: true }],
  ['base-url', { boolean: false }],
  ['api-key', { boolean: false }],
  ['output', { boolean: false }],
  ['accept', { boolean: false }],
]);

/** The first two words that are not flags (or values of the global flags before them). */
function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const token = argv[i]!;
    if (!token.startsWith('-')) {
      words.push(token);
      continue;
    }
    const name = token.replace(/^--?/, '').split('=')[0]!;
    const definition = ROOT_FLAGS.get(name === 'h' ? 'help' : name === 'o' ? 'output' : name);
    if (!definition) break; // a command flag: the command words must come before it
    if (!definition.boolean && !token.includes('=')) i++;
  }
  return words;
}

/** `accounting 0.1.0 (api 2026-…)`: the package's version and the API version the client speaks. */
export function versionLine(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `${CLI_NAME} ${pkg.version} (api ${API_VERSION})`;
}

export async function main(argv: readonly string[], io: MainIo, operations: readonly Operation[]): Promise<number> {
  const table = buildCommands(operations);
  try {
    return await dispatch(table, argv, io);
  } catch (error) {
    if (error instanceof ApiError) {
      for (const line of error.lines()) io.stderr.write(`${line}\n`);
      return error.exitCode;
    }
    if (error instanceof CliError) {
      io.stderr.write(`Error: ${error.message}\n${error.hint ? `Hint: ${error.hint}\n` : ''}`);
      return error.exitCode;
    }
    io.stderr.write(`Error: ${(error as Error).message}\n`);
    return EXIT.server;
  }
}

async function dispatch(table: CommandTable, argv: readonly string[], io: MainIo): Promise<number> {
  // `accounting help webhooks create` is `accounting webhooks create --help`.
  if (argv[0] === 'help' && argv.length > 1) return dispatch(table, [...argv.slice(1), '--help'], io);
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout.write(`${versionLine()}\n`);
    return EXIT.ok;
  }
  if (argv[0] === 'completion') {
    if (argv.length > 2) throw usageError(`Unexpected argument "${argv[2]}".`, `Usage: ${CLI_NAME} completion <bash|zsh|fish>`);
    io.stdout.write(completionScript(table, argv[1]));
    return EXIT.ok;
  }
  const [group, name] = commandWords(argv);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (group === undefined || (group === 'help' && name === undefined)) {
    io.stdout.write(rootHelp(table));
    return group === undefined && !wantsHelp && argv.length > 0 ? EXIT.usage : EXIT.ok;
  }
  if (group === 'listen') return runListen(table, argv, io);
  if (!table.groups().includes(group)) {
    if (ADMIN_COMMANDS.has(group)) {
      throw usageError(`"${group}" is an administration command, not an API command.`, `Administration works on the database: npm run admin -- ${group} …`);
    }
    throw usageError(`Unknown command group "${group}".`, `Groups: ${table.groups().join(', ')}, listen. See ${CLI_NAME} --help.`);
  }
  if (name === undefined) {
    io.stdout.write(groupHelp(table, group));
    return wantsHelp ? EXIT.ok : EXIT.usage;
  }
  const spec = table.find(group, name);
  if (!spec) {
    const names = table.commands.filter((s) => s.group === group).map((s) => s.name);
    throw usageError(`Unknown command "${group} ${name}".`, `${group} commands: ${names.join(', ')}.`);
  }
  if (wantsHelp) {
    io.stdout.write(commandHelp(spec));
    return EXIT.ok;
  }

  const command = parseCommand(spec, argv, io.env);
  return runCommand(spec, command.input, command.output, command.settings, io, { table, ...(io.signal && { signal: io.signal }) });
}

export interface ParsedCommand {
  input: CommandInput;
  output: OutputOptions;
  settings: Settings;
}

/** A command's flags, parsed strictly, as the request input, output choices and connection. */
export function parseCommand(spec: CommandSpec, argv: readonly string[], env: Record<string, string | undefined>): ParsedCommand {
  const parsed = parseFlags(argv, definitionsFor(spec));
  if (parsed.positionals.length > 2) throw usageError(`Unexpected argument "${parsed.positionals[2]}".`, 'Every input is a --flag; see --help.');
  const value = (flag: string): string | undefined => parsed.values.get(flag)?.at(-1);
  const fields = new Map([...parsed.values].filter(([flag]) => !(flag in GLOBAL_FLAGS)));
  return {
    input: {
      fields,
      dryRun: value('dry-run') === 'true',
      ...(value('data') !== undefined && { data: value('data') }),
      ...(value('idempotency-key') !== undefined && { idempotencyKey: value('idempotency-key') }),
      ...(value('accept') !== undefined && { accept: value('accept') }),
    },
    output: {
      json: value('json') === 'true',
      all: value('all') === 'true',
      wait: value('wait') === 'true',
      ...(value('output') !== undefined && { output: value('output') }),
    },
    settings: resolveSettings(env, { ...(value('base-url') && { baseUrl: value('base-url') }), ...(value('api-key') && { apiKey: value('api-key') }) }),
  };
}

async function runListen(table: CommandTable, argv: readonly string[], io: MainIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(listenHelp());
    return EXIT.ok;
  }
  const definitions = new Map<string, FlagDefinition>([
    ...Object.keys(LISTEN_FLAGS).map((flag) => [flag, { boolean: false }] as const),
    ['json', { boolean: true }],
    ['base-url', { boolean: false }],
    ['api-key', { boolean: false }],
  ]);
  const parsed = parseFlags(argv, definitions);
  if (parsed.positionals.length > 1) throw usageError(`Unexpected argument "${parsed.positionals[1]}".`);
  const value = (flag: string): string | undefined => parsed.values.get(flag)?.at(-1);
  const forwardTo = value('forward-to');
  if (!forwardTo) throw usageError('Missing --forward-to.', 'For example: accounting listen --forward-to http://localhost:8080/hook');
  const settings = resolveSettings(io.env, { ...(value('base-url') && { baseUrl: value('base-url') }), ...(value('api-key') && { apiKey: value('api-key') }) });
  return listen(
    table,
    {
      forwardTo,
      json: value('json') === 'true',
      ...(value('events') && { events: value('events') }),
      ...(value('company') && { company: value('company') }),
      ...(value('secret') && { secret: value('secret') }),
    },
    settings,
    io,
    io.signal ?? new AbortController().signal,
  );
}
