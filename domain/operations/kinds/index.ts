import type { KindDefinition } from '../runner.ts';
import { closeFiscalYearKind } from './close-fiscal-year.ts';
import { recoverWebhookDeliveriesKind } from './recover-webhook-deliveries.ts';
import { sieImportKind } from './sie-import.ts';

/**
 * Every long-running operation kind, one file each (defineKind). The Operation schema's `kind`
 * enum, the operations.kind CHECK (compared by test/integration/db/facts.test.ts) and the
 * runner's map are this list.
 */
export const KINDS = [closeFiscalYearKind, sieImportKind, recoverWebhookDeliveriesKind] as const;

export type OperationKind = (typeof KINDS)[number]['kind'];
export const OPERATION_KINDS = KINDS.map((k) => k.kind) as [OperationKind, ...OperationKind[]];

/** What each kind runs and the scopes it acts with, by kind: what `npm start` and `npm run worker` run. */
// Object.fromEntries types its keys as string; every kind is in KINDS, so each key is present.
export const OPERATION_KIND_RUNNERS = Object.fromEntries(KINDS.map((k) => [k.kind, k])) as Readonly<Record<string, KindDefinition>> as Readonly<
  Record<OperationKind, KindDefinition>
>;
