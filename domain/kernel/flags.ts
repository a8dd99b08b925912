/**
 * The one grammar for boolean flags wherever a caller or operator writes one: query flags
 * (`?dry_run=`, `?read_only=`), MCP arguments and environment settings. Exactly `true` or `false`
 * (or a JSON boolean): `1`, `yes` or `TRUE` are refused, never guessed at, so a typo can never turn
 * a dry run into a real write.
 */
export const FLAG_VALUES = ['true', 'false'] as const;

export type FlagResult = { ok: true; value: boolean | undefined } | { ok: false };

/** `undefined` (absent) is fine and stays undefined; anything but true/false is refused. */
export function parseFlag(value: unknown): FlagResult {
  if (value === undefined) return { ok: true, value: undefined };
  if (value === true || value === 'true') return { ok: true, value: true };
  if (value === false || value === 'false') return { ok: true, value: false };
  return { ok: false };
}
