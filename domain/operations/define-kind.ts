import type { Scope } from '../kernel/scopes.ts';
import type { JobHandler, KindDefinition } from './runner.ts';

/**
 * A long-running operation kind, declared once in its own file under kinds/ (found there by
 * kinds.ts): the kinds list (and so the Operation schema's `kind` enum), the runner's map and the
 * scopes all derive from it.
 */
export interface LongRunningKind<K extends string = string> extends KindDefinition {
  /** The `kind` stored on the operation row (snake_case). */
  kind: K;
  /** The scope a caller needs to queue it: the starting operation's scope, checked again by its domain verb. */
  scope: Scope;
  /** The scopes the job acts with: `scope` plus `actsWith` (it was authorised when it was queued). */
  scopes: readonly Scope[];
}

export interface KindDeclaration<K extends string> {
  kind: K;
  scope: Scope;
  /** Further scopes the job's domain verbs check, beyond `scope`. */
  actsWith?: readonly Scope[];
  /**
   * Long work on a company's books (an SIE import): at most MAX_HEAVY_PER_COMPANY such operations
   * of one company run at once; the rest wait in the queue while other companies' work goes first.
   */
  heavy?: boolean;
  /**
   * The job. Load its code with a dynamic import: the job's modules reach the event catalogue,
   * which holds the Operation schema, which lists every kind — a static import would close that
   * circle and leave a kind undefined while its file is still loading.
   */
  handler: JobHandler;
}

export function defineKind<const K extends string>(declaration: KindDeclaration<K>): LongRunningKind<K> {
  const { actsWith = [], ...rest } = declaration;
  const kind = { ...rest, scopes: [declaration.scope, ...actsWith] };
  DEFINED.add(kind);
  return kind;
}

// What defineKind returned: how kinds.ts tells a kind from anything else a file exports.
const DEFINED = new WeakSet<object>();

export const isDefinedKind = (value: unknown): value is LongRunningKind => typeof value === 'object' && value !== null && DEFINED.has(value);
