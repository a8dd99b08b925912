import { usageError } from './errors.ts';

/**
 * GNU-style flags against a known set: `--name value`, `--name=value`, boolean `--name`,
 * `--no-name` and `--name=false`. An unknown or repeated flag is a usage error naming the flags
 * that do exist — the same strictness the API applies to unknown fields.
 */

export interface FlagDefinition {
  boolean: boolean;
  /** Lists may be repeated; their values accumulate. */
  repeatable?: boolean;
}

export interface ParsedFlags {
  positionals: string[];
  values: Map<string, string[]>;
}

const SHORT: Record<string, string> = { '-h': 'help', '-o': 'output' };

export function parseFlags(argv: readonly string[], definitions: ReadonlyMap<string, FlagDefinition>): ParsedFlags {
  const positionals: string[] = [];
  const values = new Map<string, string[]>();
  const add = (name: string, value: string): void => {
    const definition = definitions.get(name)!;
    const list = values.get(name) ?? [];
    if (list.length > 0 && !definition.repeatable) throw usageError(`--${name} was given twice.`);
    values.set(name, [...list, value]);
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      positionals.push(token);
      continue;
    }
    const long = SHORT[token] ? `--${SHORT[token]}` : token;
    if (!long.startsWith('--')) throw unknownFlag(token, definitions);
    const eq = long.indexOf('=');
    const name = eq === -1 ? long.slice(2) : long.slice(2, eq);
    const inline = eq === -1 ? undefined : long.slice(eq + 1);
    const definition = definitions.get(name);
    if (!definition) {
      const negated = name.startsWith('no-') ? definitions.get(name.slice(3)) : undefined;
      if (negated?.boolean && inline === undefined) {
        add(name.slice(3), 'false');
        continue;
      }
      throw unknownFlag(`--${name}`, definitions);
    }
    if (definition.boolean) {
      const value = inline ?? 'true';
      if (value !== 'true' && value !== 'false') throw usageError(`--${name} is true or false, not "${value}".`);
      add(name, value);
      continue;
    }
    if (inline !== undefined) {
      add(name, inline);
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith('--') && next !== '--')) throw usageError(`--${name} needs a value.`);
    add(name, next);
    i++;
  }
  return { positionals, values };
}

function unknownFlag(flag: string, definitions: ReadonlyMap<string, FlagDefinition>): Error {
  const name = flag.replace(/^-+/, '');
  const close = [...definitions.keys()].filter((known) => known.includes(name) || name.includes(known) || distance(known, name) <= 2);
  return usageError(
    `Unknown flag ${flag}.`,
    close.length > 0 ? `Did you mean ${close.map((c) => `--${c}`).join(' or ')}? See --help for every flag.` : 'See --help for every flag.',
  );
}

/** Levenshtein distance, for "did you mean" on short flag names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
