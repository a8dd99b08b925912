import type { Operation } from '../registry/define-operation.ts';

/**
 * Tool descriptions say what an agent needs to choose the tool, and nothing twice: the registry's
 * one-paragraph description minus sentences that many operations share (their facts are in the
 * schema, the annotations or the session instructions), cut at a sentence boundary to fit.
 */
export const MAX_TOOL_DESCRIPTION = 300;
/** A sentence in this many operations' descriptions is boilerplate, not something that tells tools apart. */
const BOILERPLATE_THRESHOLD = 3;

/** Splits prose at sentence ends: a full stop, then a space and a capital, digit or quote. */
export const sentences = (text: string): string[] =>
  text
    .trim()
    .split(/(?<=[.!?])\s+(?=[A-Z0-9`"'(])/)
    .map((s) => s.trim())
    .filter(Boolean);

const normalise = (sentence: string): string => sentence.toLowerCase().replace(/\s+/g, ' ');

/** Sentences repeated across at least BOILERPLATE_THRESHOLD operations' descriptions. */
export function boilerplateSentences(operations: readonly Pick<Operation, 'description'>[]): ReadonlySet<string> {
  const counts = new Map<string, number>();
  for (const op of operations) {
    for (const sentence of new Set(sentences(op.description).map(normalise))) counts.set(sentence, (counts.get(sentence) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n >= BOILERPLATE_THRESHOLD).map(([sentence]) => sentence));
}

/**
 * The tool's description: the registry description without boilerplate, plus surface notes (each
 * a sentence the MCP surface adds, e.g. about a revealed secret), within MAX_TOOL_DESCRIPTION.
 * Notes go first: they are about what this surface does differently, which an agent must not miss.
 */
export function toolDescription(
  op: Pick<Operation, 'description'>,
  boilerplate: ReadonlySet<string>,
  notes: readonly string[] = [],
  /** Applied to each kept sentence before the length cap (e.g. operation ids → tool names). */
  rewrite: (sentence: string) => string = (sentence) => sentence,
): string {
  const own = sentences(op.description)
    .filter((s) => !boilerplate.has(normalise(s)))
    .map(rewrite);
  const all = [...own.slice(0, 1), ...notes, ...own.slice(1)];
  let text = '';
  for (const sentence of all) {
    const next = text ? `${text} ${sentence}` : sentence;
    if (next.length > MAX_TOOL_DESCRIPTION) {
      if (text) continue; // a later, shorter sentence may still fit
      return `${sentence.slice(0, MAX_TOOL_DESCRIPTION - 1).replace(/\s+\S*$/, '')}…`;
    }
    text = next;
  }
  return text;
}
