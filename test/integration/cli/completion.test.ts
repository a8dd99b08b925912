// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the drivers are bash and zsh code, whose ${…} are the shells' own.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type MainIo } from '../../../cli/client/main.ts';
import { buildCommands } from '../../../cli/client/spec.ts';
import { CLI_NAME } from '../../../registry/cli-command.ts';
import { ROOT } from '../../helpers/process.ts';
import { readmeBlock } from '../../helpers/readme.ts';
import { registry } from '../../../registry/index.ts';

/**
 * The completion scripts run in the real shells: bash's completion function is driven as bash
 * drives it (COMP_LINE/COMP_POINT, COMPREPLY), fish answers `complete -C`, and zsh registers the
 * function with compinit and computes candidates (its menu builtins, which exist only inside a
 * completion widget, are replaced by ones that print what they were given). What is expected
 * comes from the command table, never from a list written here.
 */

const table = buildCommands(registry.operations);
const dir = mkdtempSync(join(tmpdir(), 'cli-completion-'));
const has = (shell: string): boolean => spawnSync(shell, ['--version']).status === 0;
const HAS_ZSH = has('zsh');
const HAS_FISH = has('fish');
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const HAS_BASH_COMPLETION = existsSync(BASH_COMPLETION);
if (!HAS_ZSH || !HAS_FISH || !HAS_BASH_COMPLETION) {
  console.warn('zsh, fish or bash-completion is absent (apt-get install zsh fish bash-completion): some completion runs are skipped');
}

async function script(shell: string): Promise<{ code: number; path: string; stderr: string }> {
  let out = '';
  let err = '';
  const io = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: {},
    readStdin: async () => '',
  } as unknown as MainIo;
  const code = await main(['completion', shell], io, registry.operations);
  const path = join(dir, `completion.${shell}`);
  writeFileSync(path, out);
  return { code, path, stderr: err };
}

/** stdin not a socket: bash takes a socket on stdin for sshd's and reads the system bashrc. */
const STDIO: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];

const run = (shell: string, args: string[], source: string): string => {
  const result = spawnSync(shell, [...args, source], { encoding: 'utf8', cwd: dir, stdio: STDIO });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
};

// What the table says, as a person would type it.
const group = table.groups().find((name) => table.groups().filter((other) => other.startsWith(name.slice(0, 3))).length === 1)!;
const groupPrefix = group.slice(0, 3);
const command = table.commands.find((spec) => spec.group === group && spec.flags.length > 0)!;
const flag = command.flags[0]!;
const enumCommand = table.commands.find((spec) => spec.flags.some((f) => (f.enumValues?.length ?? 0) > 1))!;
const enumFlag = enumCommand.flags.find((f) => (f.enumValues?.length ?? 0) > 1)!;
const groupCommands = table.commands.filter((spec) => spec.group === group).map((spec) => spec.name);

/** Each case: the line up to the cursor, and the candidates the shell must offer (in any order). */
const CASES: [string, string[]][] = [
  [`${CLI_NAME} ${groupPrefix}`, [group]],
  [`${CLI_NAME} ${group} ${command.name}`, groupCommands.filter((name) => name.startsWith(command.name))],
  [`${CLI_NAME} ${group} ${command.name} --${flag.flag}`, [`--${flag.flag}`]],
  [`${CLI_NAME} ${enumCommand.group} ${enumCommand.name} --${enumFlag.flag} `, enumFlag.enumValues!],
  // A global flag's value before the group is not taken for the group.
  [`${CLI_NAME} --base-url http://localhost:3000 ${group} `, groupCommands],
  [`${CLI_NAME} help ${groupPrefix}`, [group]],
  [`${CLI_NAME} completion `, ['bash', 'zsh', 'fish']],
];

describe('accounting completion', () => {
  it('refuses a shell it does not know, naming the ones it does', async () => {
    const { code, stderr } = await script('tcsh');
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown shell "tcsh"');
    expect(stderr).toContain('bash|zsh|fish');
  });

  it('bash: the completion function completes groups, commands, flags and enum values', async () => {
    const { code, path } = await script('bash');
    expect(code).toBe(0);
    const driver = join(dir, 'drive.bash');
    writeFileSync(
      driver,
      [
        'source "$1"',
        `complete -p ${CLI_NAME}`,
        'c() { COMP_LINE=$1; COMP_POINT=${#1}; COMPREPLY=(); _accounting; printf "%s\\n" "=${#COMPREPLY[@]}" "${COMPREPLY[@]}"; }',
        ...CASES.map(([line]) => `c '${line}'`),
        `c '${CLI_NAME} ${group} ${command.name} --output '`,
      ].join('\n'),
    );
    writeFileSync(join(dir, 'report.pdf'), '');
    const blocks = run('bash', [driver], path).split(/^=\d+\n/m);
    expect(blocks[0]).toBe(`complete -F _accounting ${CLI_NAME}\n`);
    CASES.forEach(([line, expected], i) => {
      expect(blocks[i + 1]!.split('\n').filter(Boolean).sort(), line).toEqual([...expected].sort());
    });
    // --output takes a file name: the shell's own file completion.
    expect(blocks[CASES.length + 1]!.split('\n')).toContain('report.pdf');
  });

  it.skipIf(!HAS_FISH)('fish: complete -C offers the same candidates', async () => {
    const { code, path } = await script('fish');
    expect(code).toBe(0);
    const commands = CASES.map(([line]) => `complete -C '${line}'; echo =`).join('; ');
    const blocks = run('fish', ['-c', `source $argv[1]; ${commands}`], path).split(/^=\n/m);
    CASES.forEach(([line, expected], i) => {
      const offered = blocks[i]!.split('\n')
        .filter(Boolean)
        .map((row) => row.split('\t')[0]);
      expect(offered.sort(), line).toEqual([...expected].sort());
    });
  });

  it.skipIf(!HAS_ZSH)('zsh: compinit registers it and it computes the same candidates', async () => {
    const { code, path } = await script('zsh');
    expect(code).toBe(0);
    expect(spawnSync('zsh', ['-n', path]).status).toBe(0);
    const registered = run('zsh', ['-f', '-c', 'autoload -U compinit && compinit -u -D && source $1 && print -r -- ${_comps[accounting]}', 'zsh'], path);
    expect(registered).toBe('_accounting\n');
    // Outside a widget the menu builtins do not exist: these print the candidates they are given,
    // and the prefix filter zsh applies is applied here.
    const driver = [
      'compdef() { :; }',
      'compset() { :; }',
      '_files() { print -r -- FILES; }',
      'emit() { local -a a; a=("${(@P)1}"); print -rl -- ${(M)${a[@]%%:*}:#${~PREFIX}*}; }',
      '_describe() { emit ${@[-1]}; }',
      'compadd() { emit ${@[-1]}; }',
      'source $1',
      'c() { words=(${(z)1}); PREFIX=${words[-1]}; [[ $1 == *" " ]] && { words+=(""); PREFIX=""; }; CURRENT=$#words; _accounting; print =; }',
      ...CASES.map(([line]) => `c '${line}'`),
    ].join('\n');
    const blocks = run('zsh', ['-f', '-c', driver, 'zsh'], path).split(/^=\n/m);
    CASES.forEach(([line, expected], i) => {
      expect(blocks[i]!.split('\n').filter(Boolean).sort(), line).toEqual([...expected].sort());
    });
  });

  it.skipIf(!HAS_ZSH || !HAS_FISH || !HAS_BASH_COMPLETION)(
    "the README's install commands, run as written, make each shell complete `accounting`",
    async () => {
      // A home of its own, and `accounting` on PATH as `npm install -g .` puts it there.
      const home = mkdtempSync(join(tmpdir(), 'cli-completion-home-'));
      const bin = join(home, 'bin');
      mkdirSync(bin);
      symlinkSync(join(ROOT, 'bin', 'accounting.mjs'), join(bin, CLI_NAME));
      mkdirSync(join(home, '.config', 'fish', 'completions'), { recursive: true }); // fish creates it on its first start
      const env = { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` };
      const shell = (name: string, args: string[]): string => {
        const result = spawnSync(name, args, { encoding: 'utf8', cwd: home, env, stdio: STDIO });
        expect(result.stderr, `${name} ${args.join(' ')}`).toBe('');
        expect(result.status).toBe(0);
        return result.stdout;
      };
      shell('bash', ['-euo', 'pipefail', '-c', readmeBlock('readme-command:completion')]);

      // bash-completion loads it on first use from ~/.local/share/bash-completion/completions.
      const line = `${CLI_NAME} ${groupPrefix}`;
      const bashOut = shell('bash', [
        '-c',
        `source ${BASH_COMPLETION}; _completion_loader ${CLI_NAME}; complete -p ${CLI_NAME}; COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}; _accounting; echo "\${COMPREPLY[*]}"`,
      ]);
      expect(bashOut).toBe(`complete -F _accounting ${CLI_NAME}\n${group}\n`);
      // zsh: compinit finds _accounting in the directory the README puts on $fpath.
      expect(shell('zsh', ['-f', '-c', `fpath=(~/.zfunc $fpath); autoload -U compinit; compinit -u -D; print -r -- \${_comps[${CLI_NAME}]}`])).toBe(
        '_accounting\n',
      );
      // fish autoloads ~/.config/fish/completions/accounting.fish.
      expect(shell('fish', ['-c', `complete -C '${line}'`]).split('\t')[0]).toBe(group);
    },
    120_000,
  );
});

describe('a reader that stops early', () => {
  it('ends the client quietly: `accounting completion fish | head -1` exits 0 with nothing on stderr', () => {
    const run = spawnSync('bash', ['-c', `set -o pipefail; node bin/${CLI_NAME}.mjs completion fish | head -1`], { cwd: ROOT, encoding: 'utf8' });
    expect(run.stdout).toMatch(/^# fish completion/);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 60_000);
});
