import { isDefinedKind, type LongRunningKind } from './define-kind.ts';
import { FOLDER_MODULES } from './kind-modules.ts';
import type { KindDefinition } from './runner.ts';

/**
 * Every long-running operation kind: whatever defineKind declared in a file under kinds/ (one file
 * each), so adding a kind is adding its file. The Operation schema's `kind` enum and the runner's
 * map are this list; a runner claims only the kinds it knows (runner.ts), so the database needs no
 * list of its own.
 */
export const KINDS: readonly LongRunningKind[] = FOLDER_MODULES.flatMap(([, module]) => Object.values(module).filter(isDefinedKind));

export type OperationKind = string;
export const OPERATION_KINDS = KINDS.map((k) => k.kind) as [OperationKind, ...OperationKind[]];

/** What each kind runs and the scopes it acts with, by kind: what `npm start` and `npm run worker` run. */
export const OPERATION_KIND_RUNNERS: Readonly<Record<OperationKind, KindDefinition>> = Object.fromEntries(KINDS.map((k) => [k.kind, k]));
