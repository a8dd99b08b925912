import { z } from 'zod';
import type { OperationContext } from '../../context.ts';
import { requireScope, withTransaction } from '../../context.ts';
import { DomainError } from '../../kernel/errors.ts';
import { checkLooksLikeSie, importSieBatch, planSieImport, prepareSieImport, readSieImport, sieImportSummary, SIE_IMPORT_BATCH } from '../../sie/import.ts';
import type { Operation } from '../schemas.ts';
import { enqueueOperation } from '../store.ts';
import type { Job } from '../runner.ts';
import { sieImportKind } from '../kinds/sie-import.ts';

/** Where a rerun resumes: after the setup, at verification `next` (0-based, in file order). */
const Checkpoint = z
  .object({
    fiscal_year_id: z.uuid(),
    opening_entry_id: z.uuid().nullable(),
    next: z.number().int().nonnegative(),
    summary: z.record(z.string(), z.unknown()),
  })
  .nullable();
type Checkpoint = NonNullable<z.infer<typeof Checkpoint>>;

/**
 * Queues an import of an uploaded file. Here only its first record is checked (it must be SIE),
 * so a large file never holds the request; the job reads and checks the rest before writing. A
 * dry run reads and plans the whole file at once and shows the plan as the operation's result.
 */
export async function startSieImport(ctx: OperationContext, companyId: string, file: { filename: string | null; bytes: Buffer }): Promise<Operation> {
  requireScope(ctx, sieImportKind.scope);
  checkLooksLikeSie(file.bytes);
  const preview = ctx.dryRun
    ? await withTransaction(ctx, async (tx) => {
        const read = readSieImport(file.bytes);
        return sieImportSummary(read, await planSieImport(tx, companyId, read));
      })
    : null;
  // The client's file name is kept for the record only (display), without control characters.
  const filename = file.filename?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) ?? null;
  const operation = await enqueueOperation(ctx, companyId, sieImportKind.kind, { filename, bytes: file.bytes.length }, file.bytes);
  return preview ? { ...operation, result: preview } : operation;
}

/**
 * Imports an uploaded SIE 4 file (domain/sie/import.ts). The file is read and checked whole, then
 * checked against the books and the setup (fiscal years, accounts, opening entry) written in one
 * transaction with the first checkpoint — a bad file fails here and leaves nothing behind. Then
 * every SIE_IMPORT_BATCH verifications commit in one transaction together with the checkpoint
 * naming the next one, so a process killed at any moment leaves whole batches and the checkpoint
 * that matches them: the rerun continues there, and each verification is booked exactly once
 * with gapless numbers. Cancelling stops at the next batch; the batches before it stay booked.
 */
export async function importSieJob(job: Job): Promise<Record<string, unknown>> {
  const bytes = await job.content();
  if (!bytes) throw new DomainError('SIE_INVALID', { message: 'The operation has no SIE file.' });
  const file = readSieImport(bytes);
  const total = file.verifications.length;
  let state: Checkpoint | null = Checkpoint.parse(job.checkpoint ?? null);
  state ??= await withTransaction(job.ctx, async (tx) => {
    const plan = await planSieImport(tx, job.companyId, file);
    const prepared = await prepareSieImport(tx, job.companyId, file, plan);
    const first: Checkpoint = {
      fiscal_year_id: prepared.fiscalYearId,
      opening_entry_id: prepared.openingEntryId,
      next: 0,
      summary: sieImportSummary(file, plan),
    };
    await job.checkpointIn(tx, 1, `Checked; 0 of ${total} verifications imported`, first);
    return first;
  });
  while (state.next < total) {
    const from: Checkpoint = state;
    state = await withTransaction(job.ctx, async (tx) => {
      const batch = file.verifications.slice(from.next, from.next + SIE_IMPORT_BATCH);
      await importSieBatch(tx, job.companyId, from.fiscal_year_id, batch);
      const next: Checkpoint = { ...from, next: from.next + batch.length };
      await job.checkpointIn(tx, 1 + (98 * next.next) / total, `${next.next} of ${total} verifications imported`, next);
      return next;
    });
  }
  return { ...state.summary, fiscal_year_id: state.fiscal_year_id, opening_entry_id: state.opening_entry_id };
}
