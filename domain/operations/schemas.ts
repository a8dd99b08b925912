import { z } from 'zod';
import { OPERATION_KINDS } from './kinds.ts';

export { OPERATION_KINDS };
export const OperationKind = z.enum(OPERATION_KINDS).describe('What the operation does.');
export type OperationKind = z.infer<typeof OperationKind>;

export const OPERATION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export const OperationStatus = z.enum(OPERATION_STATUSES);
export type OperationStatus = z.infer<typeof OperationStatus>;
export const TERMINAL_STATUSES: readonly OperationStatus[] = ['succeeded', 'failed', 'cancelled'];

const Timestamp = z.iso.datetime();

export const Operation = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    kind: OperationKind,
    status: OperationStatus.describe('queued → running → succeeded | failed | cancelled; the last three are final.'),
    progress: z.number().int().min(0).max(100).describe('Percent done.'),
    progress_message: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).nullable().describe('What the work produced, once succeeded.'),
    error: z.object({ code: z.string(), message: z.string() }).nullable().describe('Why it failed (a catalogue code); null unless failed.'),
    cancel_requested: z.boolean().describe('Cancellation asked for while running; it stops at its next checkpoint.'),
    attempts: z.number().int().nonnegative().describe('Times a runner started it (a restart after a crash counts).'),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .describe('A long-running operation. Poll getOperation until status is final.');
export type Operation = z.infer<typeof Operation>;

export const OperationListQuery = z.strictObject({
  status: OperationStatus.optional(),
  kind: OperationKind.optional(),
});
export type OperationListQuery = z.infer<typeof OperationListQuery>;
