import { CLI_NAME } from '../../registry/cli-command.ts';
import { usageError } from './errors.ts';
import { LISTEN_FLAGS } from './listen.ts';
import { GLOBAL_FLAGS, globalFlagsOf, type CommandTable } from './spec.ts';

/**
 * `accounting completion bash|zsh|fish`: a completion script for the shell, generated from the
 * same command table the client runs (registry → buildCommands), so a new operation, flag or enum
 * value completes as soon as it exists. Every script answers the same questions the same way:
 * which context the words before the cursor select ('' → groups, `webhooks` → its commands,
 * `webhooks create` → its flags), which flags of that context take a value (so the value is not
 * mistaken for a command word), and which values a flag takes (enums) or whether it names a file.
 */

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

interface Candidate {
  name: string;
  description: string;
}

interface CompletionFlag extends Candidate {
  /** Takes a value (`--url <value>`); false for switches. */
  valued: boolean;
  /** The value is a local path (`--output`, `--data @file`, an upload). */
  path: boolean;
  values: string[];
}

interface Context {
  /** The command words that select it: '', `webhooks`, `webhooks create`. */
  key: string;
  words: Candidate[];
  flags: CompletionFlag[];
}

/** One line, first sentence, short enough for a completion menu. */
function brief(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  // The first sentence; `e.g.` and `i.e.` do not end one.
  const sentence = line.match(/^.*?(?<!\b(?:e\.g|i\.e))[.!?](?=\s|$)/)?.[0] ?? line;
  return sentence.length > 80 ? `${sentence.slice(0, 79)}…` : sentence;
}

const PATH_FLAGS = new Set<string>(['output', 'data']);

function globalFlag(name: keyof typeof GLOBAL_FLAGS): CompletionFlag {
  const { kind, description } = GLOBAL_FLAGS[name];
  return { name, description: brief(description), valued: kind !== 'boolean', path: PATH_FLAGS.has(name), values: [] };
}

const switchFlag = (name: string, description: string): CompletionFlag => ({ name, description, valued: false, path: false, values: [] });

/** The contexts of a command table: the root, each group, each command, `listen` and `completion`. */
export function completionContexts(table: CommandTable): Context[] {
  const rootFlags = [
    switchFlag('help', brief(GLOBAL_FLAGS.help.description)),
    switchFlag('version', 'Print the client and API version.'),
    ...(['json', 'output', 'accept', 'base-url', 'api-key'] as const).map(globalFlag),
  ];
  const groups = table.groups();
  const contexts: Context[] = [
    {
      key: '',
      words: [
        ...groups.map((group) => ({ name: group, description: `${table.commands.filter((spec) => spec.group === group).length} ${group} commands` })),
        { name: 'listen', description: 'Forward new events, signed like webhook deliveries, to a local receiver' },
        { name: 'completion', description: 'Print a shell completion script (bash, zsh or fish)' },
        { name: 'help', description: 'Help for a group or command' },
      ],
      flags: rootFlags,
    },
    ...groups.map((group) => ({
      key: group,
      words: table.commands.filter((spec) => spec.group === group).map((spec) => ({ name: spec.name, description: brief(spec.op.summary) })),
      flags: rootFlags,
    })),
    ...table.commands.map((spec) => ({
      key: `${spec.group} ${spec.name}`,
      words: [],
      flags: [
        ...spec.flags.map((flag) => ({
          name: flag.flag,
          description: brief(flag.description) || flag.field,
          valued: flag.kind !== 'boolean',
          path: flag.kind === 'file',
          values: flag.enumValues ?? [],
        })),
        ...globalFlagsOf(spec).map(globalFlag),
      ],
    })),
    {
      key: 'listen',
      words: [],
      flags: [
        ...Object.entries(LISTEN_FLAGS).map(([name, description]) => ({ name, description: brief(description), valued: true, path: false, values: [] })),
        switchFlag('json', 'One JSON line per forwarded event on stdout.'),
        ...(['base-url', 'api-key', 'help'] as const).map(globalFlag),
      ],
    },
    { key: 'completion', words: COMPLETION_SHELLS.map((shell) => ({ name: shell, description: `Completion script for ${shell}` })), flags: [] },
  ];
  return contexts;
}

/** A word in single quotes, for bash, zsh and fish alike ('' inside is closed, escaped, reopened). */
const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
/** fish does not accept '\'' inside single quotes; it escapes with a backslash instead. */
const fishQuote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const fn = CLI_NAME.replace(/[^A-Za-z0-9]/g, '_');

const INSTALL: Record<CompletionShell, string> = {
  bash: `#   ${CLI_NAME} completion bash > ~/.local/share/bash-completion/completions/${CLI_NAME}\n#   (or, for this shell only: source <(${CLI_NAME} completion bash))`,
  zsh: `#   ${CLI_NAME} completion zsh > "\${fpath[1]}/_${CLI_NAME}"   (then start a new shell; compinit must run)\n#   (or, for this shell only, after compinit: source <(${CLI_NAME} completion zsh))`,
  fish: `#   ${CLI_NAME} completion fish > ~/.config/fish/completions/${CLI_NAME}.fish`,
};

const header = (shell: CompletionShell): string =>
  `# ${shell} completion for ${CLI_NAME}, generated from the operation registry by \`${CLI_NAME} completion ${shell}\`.\n# Install:\n${INSTALL[shell]}\n`;

/**
 * The loop that finds the context, shared in spirit by bash and zsh: the first two words that
 * are not flags (`help` first is skipped: `accounting help webhooks create`), stepping over the
 * value of a flag that takes one unless it was glued on with `=`.
 */
function bashScript(contexts: Context[]): string {
  const specCases = contexts.map((context) => {
    const valued = context.flags.filter((flag) => flag.valued).map((flag) => `--${flag.name}`);
    const paths = context.flags.filter((flag) => flag.path).map((flag) => `--${flag.name}`);
    return `    ${quote(context.key)}) _w=${quote(context.words.map((w) => w.name).join(' '))} _f=${quote(context.flags.map((flag) => `--${flag.name}`).join(' '))} _v=${quote(valued.join(' '))} _p=${quote(paths.join(' '))} ;;`;
  });
  const valueCases = contexts.flatMap((context) =>
    context.flags
      .filter((flag) => flag.values.length > 0)
      .map((flag) => `    ${quote(`${context.key}|--${flag.name}`)}) _e=${quote(flag.values.join(' '))} ;;`),
  );
  return `${header('bash')}
_${fn}_spec() {
  case $1 in
${specCases.join('\n')}
    *) _w='' _f='' _v='' _p='' ;;
  esac
}

_${fn}_values() {
  case "$1|$2" in
${valueCases.join('\n')}
    *) _e='' ;;
  esac
}

_${fn}() {
  local line=\${COMP_LINE:0:COMP_POINT} cur='' ctx='' w prev='' _w _f _v _p _e
  local -i i n=0 skip=0
  local -a argv
  read -ra argv <<< "$line"
  if [[ -n $line && $line != *[[:space:]] ]]; then
    cur=\${argv[\${#argv[@]}-1]}
    unset 'argv[\${#argv[@]}-1]'
  fi
  for ((i = 1; i < \${#argv[@]}; i++)); do
    w=\${argv[i]}
    if ((skip)); then skip=0; continue; fi
    if [[ $w == -* ]]; then
      _${fn}_spec "$ctx"
      [[ $w != *=* && " $_v " == *" $w "* ]] && skip=1
    elif ((n == 0)) && [[ $w == help ]]; then
      continue
    elif ((n < 2)); then
      ctx=\${ctx:+$ctx }$w
      n+=1
    fi
  done
  _${fn}_spec "$ctx"
  if ((skip)); then
    prev=\${argv[\${#argv[@]}-1]}
    _${fn}_values "$ctx" "$prev"
    if [[ -n $_e ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$_e" -- "$cur")
    elif [[ " $_p " == *" $prev "* ]]; then
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    else
      COMPREPLY=()
    fi
  elif [[ $cur == --*=* ]]; then
    _${fn}_values "$ctx" "\${cur%%=*}"
    mapfile -t COMPREPLY < <(compgen -W "$_e" -- "\${cur#*=}")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$_f" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$_w" -- "$cur")
  fi
}

complete -F _${fn} ${CLI_NAME}
`;
}

/** zsh: the same contexts, with descriptions shown through _describe. */
function zshScript(contexts: Context[]): string {
  const describe = (name: string, description: string): string => quote(`${name.replace(/:/g, '\\:')}:${description}`);
  const specCases = contexts.map((context) => {
    const valued = context.flags.filter((flag) => flag.valued).map((flag) => quote(`--${flag.name}`));
    const paths = context.flags.filter((flag) => flag.path).map((flag) => quote(`--${flag.name}`));
    return [
      `    ${quote(context.key)})`,
      `      _w=(${context.words.map((w) => describe(w.name, w.description)).join(' ')})`,
      `      _f=(${context.flags.map((flag) => describe(`--${flag.name}`, flag.description)).join(' ')})`,
      `      _v=(${valued.join(' ')}) _p=(${paths.join(' ')}) ;;`,
    ].join('\n');
  });
  const valueCases = contexts.flatMap((context) =>
    context.flags
      .filter((flag) => flag.values.length > 0)
      .map((flag) => `    ${quote(`${context.key}|--${flag.name}`)}) _e=(${flag.values.map(quote).join(' ')}) ;;`),
  );
  return `#compdef ${CLI_NAME}
${header('zsh')}
_${fn}_spec() {
  case $1 in
${specCases.join('\n')}
    *) _w=() _f=() _v=() _p=() ;;
  esac
}

_${fn}_values() {
  case "$1|$2" in
${valueCases.join('\n')}
    *) _e=() ;;
  esac
}

_${fn}() {
  local ctx='' w cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  local -i i n=0 skip=0
  local -a _w _f _v _p _e
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    if ((skip)); then skip=0; continue; fi
    if [[ $w == -* ]]; then
      _${fn}_spec "$ctx"
      [[ $w != *=* ]] && (( \${_v[(Ie)$w]} )) && skip=1
    elif ((n == 0)) && [[ $w == help ]]; then
      continue
    elif ((n < 2)); then
      ctx=\${ctx:+$ctx }$w
      n+=1
    fi
  done
  _${fn}_spec "$ctx"
  if ((skip)); then
    _${fn}_values "$ctx" "$prev"
    if (( $#_e )); then
      compadd -a _e
    elif (( \${_p[(Ie)$prev]} )); then
      _files
    fi
  elif [[ $cur == --*=* ]]; then
    _${fn}_values "$ctx" "\${cur%%=*}"
    compset -P '*='
    compadd -a _e
  elif [[ $cur == -* ]]; then
    _describe -t flags 'flag' _f
  else
    _describe -t commands 'command' _w
  fi
}

# Autoloaded from $fpath the file is the function's body: run it. Sourced: register it.
if [[ \${funcstack[1]} == _${fn} ]]; then
  _${fn} "$@"
else
  compdef _${fn} ${CLI_NAME}
fi
`;
}

/** fish: native \`complete\` lines, each guarded by the context the words before the cursor select. */
function fishScript(contexts: Context[]): string {
  const valuedCases = contexts.map((context) => {
    const valued = context.flags.filter((flag) => flag.valued).map((flag) => `--${flag.name}`);
    return `        case ${fishQuote(context.key)}\n            set valued ${valued.map(fishQuote).join(' ')}`;
  });
  const lines: string[] = [];
  for (const context of contexts) {
    const guard = `-n ${fishQuote(`__${fn}_is ${fishQuote(context.key)}`)}`;
    for (const word of context.words) lines.push(`complete -c ${CLI_NAME} ${guard} -a ${fishQuote(word.name)} -d ${fishQuote(word.description)}`);
    for (const flag of context.flags) {
      const value = flag.values.length > 0 ? ` -x -a ${fishQuote(flag.values.join(' '))}` : flag.path ? ' -r -F' : flag.valued ? ' -x' : '';
      lines.push(`complete -c ${CLI_NAME} ${guard} -l ${flag.name}${value} -d ${fishQuote(flag.description)}`);
    }
  }
  return `${header('fish')}
# The context of the words before the cursor: '', a group, or 'group command'.
function __${fn}_context
    set -l ctx ''
    set -l n 0
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $w
            set -l valued
            switch $ctx
${valuedCases.join('\n')}
            end
            if not string match -q -- '*=*' $w; and contains -- $w $valued
                set skip 1
            end
        else if test $n -eq 0; and test $w = help
            continue
        else if test $n -lt 2
            if test -n "$ctx"
                set ctx "$ctx $w"
            else
                set ctx $w
            end
            set n (math $n + 1)
        end
    end
    echo $ctx
end

function __${fn}_is
    test "$(__${fn}_context)" = "$argv[1]"
end

complete -c ${CLI_NAME} -f
${lines.join('\n')}
`;
}

export function completionScript(table: CommandTable, shell: string | undefined): string {
  const contexts = completionContexts(table);
  switch (shell) {
    case 'bash':
      return bashScript(contexts);
    case 'zsh':
      return zshScript(contexts);
    case 'fish':
      return fishScript(contexts);
    default:
      throw usageError(
        shell === undefined ? 'Missing shell.' : `Unknown shell "${shell}".`,
        `Usage: ${CLI_NAME} completion <${COMPLETION_SHELLS.join('|')}>; the script goes to stdout (see README, "Shell completion").`,
      );
  }
}
