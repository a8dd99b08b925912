import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { z } from 'zod';
import type { OperationContext } from '../../context.ts';
import { requireScope, withTransaction } from '../../context.ts';
import { DomainError, type ErrorCode } from '../../kernel/errors.ts';
import {
  addSieImportAccounts,
  addSieImportDimensionsAndComparatives,
  announceSieImport,
  announceSieImportAccounts,
  beginSieImport,
  checkLooksLikeSie,
  completeSieImport,
  importSieBatch,
  openSieImport,
  planSieImport,
  readSieImport,
  removeSieImportEntries,
  removeSieImportRest,
  SIE_IMPORT_ACCOUNT_BATCH,
  SIE_IMPORT_BATCH,
  SIE_IMPORT_BATCH_LINES,
  SNIFF_BYTES,
  sieImportPending,
  sieImportSummary,
  sieImportVerifications,
  type SieImportFile,
  type SieImportVerification,
} from '../../sie/import.ts';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import { readSlice, type ByteSource } from '../../kernel/byte-source.ts';
import type { Operation } from '../schemas.ts';
import { enqueueOperation } from '../store.ts';
import { Cancelled, LeaseLost, type Job } from '../runner.ts';
import { sieImportKind } from '../kinds/sie-import.ts';

/**
 * Where a rerun resumes. `import`: after the setup, at verification `next` (0-based, in file
 * order). `announce`: the books are complete; journal_entry.committed goes out for the entries
 * after `after`. `remove`: the import failed or was cancelled and is being undone; the outcome
 * is what the operation ends with once nothing of it is left. A checkpoint without `phase` was
 * written before phases existed and is an `import` one.
 */
const ImportState = z.object({
  phase: z.literal('import').default('import'),
  fiscal_year_id: z.uuid(),
  opening_entry_id: z.uuid().nullable(),
  next: z.number().int().nonnegative(),
  summary: z.record(z.string(), z.unknown()),
});
/** `accounts`: the created accounts whose account.created is still to go out, before any entry's. */
const AnnounceState = z.object({
  phase: z.literal('announce'),
  accounts: z.array(z.uuid()).default([]),
  after: z.uuid().nullable(),
  result: z.record(z.string(), z.unknown()),
});
type AnnounceState = z.infer<typeof AnnounceState>;
const Outcome = z.union([z.object({ status: z.literal('cancelled') }), z.object({ status: z.literal('failed'), code: z.string(), message: z.string() })]);
const RemoveState = z.object({ phase: z.literal('remove'), outcome: Outcome, removed: z.number().int().nonnegative() });
const Checkpoint = z.union([AnnounceState, RemoveState, ImportState]).nullable();
type ImportState = z.infer<typeof ImportState>;
type Outcome = z.infer<typeof Outcome>;

/**
 * Queues an import of an uploaded file. Here only its first record is checked (it must be SIE),
 * so a large file never holds the request; the job reads and checks the rest before writing. A
 * dry run reads and plans the whole file at once and shows the plan as the operation's result;
 * it parses outside any transaction, so it holds a database connection only for the plan.
 */
export async function startSieImport(ctx: OperationContext, companyId: string, file: { filename: string | null; content: ByteSource }): Promise<Operation> {
  requireScope(ctx, sieImportKind.scope);
  checkLooksLikeSie(await readSlice(file.content, 0, SNIFF_BYTES));
  // A dry run reads the file before it takes a connection: the parse is the long part (CPU and
  // memory), and the plan's transaction that follows is a few indexed queries, so a dry run holds
  // a pooled connection only as long as any other write does (docs/sie.md).
  const read = ctx.dryRun ? await readSieImport(() => file.content.read()) : null;
  const preview = read ? await withTransaction(ctx, async (tx) => sieImportSummary(read, await planSieImport(tx, companyId, read))) : null;
  // The client's file name is kept for the record only (display), without control characters.
  const filename = file.filename?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255) ?? null;
  const operation = await enqueueOperation(ctx, companyId, sieImportKind.kind, { filename, bytes: file.content.size }, file.content);
  return preview ? { ...operation, result: preview } : operation;
}

/**
 * Imports an uploaded SIE 4 file (domain/sie/import.ts), all or nothing (docs/sie.md). The file
 * is streamed and checked whole (keeping no vouchers), then checked against the books, and the setup (fiscal years,
 * accounts, dimensions, the opening entry, the pending_imports row) is written in short
 * transactions (setUp), the last with the first checkpoint — a bad file fails before any and writes nothing (setUp). Every SIE_IMPORT_BATCH
 * verifications (at most SIE_IMPORT_BATCH_LINES lines) then commit in one transaction with the checkpoint naming the next one, so a
 * process killed at any moment leaves whole batches and the checkpoint that matches them, and the
 * rerun continues there. All of it stays hidden until the transaction after the last batch
 * completes the import. A failure or a cancel before that removes everything the import wrote (also when the
 * cancel came while no runner held it: the next claim undoes it), and the operation ends failed or
 * cancelled. After completion the entries are announced in batches; a cancel then changes nothing.
 */
export async function importSieJob(job: Job): Promise<Record<string, unknown>> {
  const checkpoint = Checkpoint.parse(job.checkpoint ?? null);
  if (checkpoint?.phase === 'remove') return undo(job, checkpoint.outcome, checkpoint.removed);
  if (checkpoint?.phase === 'announce') return announce(job, checkpoint);
  if (job.cancelRequested) return undo(job, { status: 'cancelled' }, 0);
  let imported: AnnounceState;
  try {
    imported = await importAll(job, checkpoint);
  } catch (error) {
    if (error instanceof LeaseLost || isDatabaseUnavailable(error)) throw error;
    if (error instanceof Cancelled) return undo(job, { status: 'cancelled' }, 0);
    if (error instanceof DomainError) return undo(job, { status: 'failed', code: error.code, message: error.message }, 0, error);
    job.ctx.services.logger.error({ err: error, operation: job.operationId }, 'SIE import failed unexpectedly; undoing it');
    return undo(
      job,
      { status: 'failed', code: 'INTERNAL_ERROR', message: 'The import failed unexpectedly and was undone; retry it, or contact support with its id.' },
      0,
    );
  }
  return announce(job, imported);
}

async function importAll(job: Job, checkpoint: ImportState | null): Promise<AnnounceState> {
  // The stored chunks, streamed anew for each pass (readOperationInput): never one buffer.
  const source = () => job.file();
  const file = await readSieImport(source);
  const total = file.verificationCount;
  let state: ImportState = checkpoint ?? (await setUp(job, file));
  // The verifications stream from the bytes again; a rerun skips the ones its checkpoint says are in.
  let skip = state.next;
  const batchSize = SIE_IMPORT_BATCH[job.ctx.services.database.kind];
  const batchLines = SIE_IMPORT_BATCH_LINES[job.ctx.services.database.kind];
  let batch: SieImportVerification[] = [];
  let lines = 0;
  const flush = async () => {
    state = await importBatch(job, file, state, batch);
    batch = [];
    lines = 0;
    // Between two transactions: on PGlite (one connection) the requests waiting get it now.
    await yieldToEventLoop();
  };
  for await (const verification of sieImportVerifications(source, file)) {
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    if (batch.length > 0 && lines + verification.lines.length > batchLines) await flush();
    batch.push(verification);
    lines += verification.lines.length;
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  if (state.next !== total) throw new Error(`importSieJob: ${state.next} of ${total} verifications imported`);
  return complete(job, state);
}

/**
 * The setup in its four steps (domain/sie/import.ts), each its own transaction with a yield between
 * them, the last with the first checkpoint: on PGlite every request waits while a transaction holds
 * the one connection, and the setup in one transaction held it about 400 ms. A bad file fails in
 * the first step and writes nothing. A setup that a killed process cut short left a pending import
 * without a checkpoint: what it wrote is removed first, and the setup runs again whole.
 */
async function setUp(job: Job, file: SieImportFile): Promise<ImportState> {
  const { ctx, companyId, operationId } = job;
  const total = file.verificationCount;
  if (await sieImportPending(ctx, companyId, operationId)) {
    await withTransaction(ctx, async (tx) => {
      for (let removed = 1; removed > 0; ) removed = await removeSieImportEntries(tx, companyId, operationId);
      await removeSieImportRest(tx, companyId, operationId);
    });
  }
  const { plan, years } = await withTransaction(ctx, async (tx) => {
    const planned = await planSieImport(tx, companyId, file);
    return { plan: planned, years: await beginSieImport(tx, companyId, operationId, planned) };
  });
  await yieldToEventLoop();
  const accountBatch = SIE_IMPORT_ACCOUNT_BATCH[ctx.services.database.kind];
  for (let from = 0; from < plan.createAccounts.length; from += accountBatch) {
    const accounts = plan.createAccounts.slice(from, from + accountBatch);
    await withTransaction(ctx, (tx) => addSieImportAccounts(tx, companyId, operationId, accounts));
    await yieldToEventLoop();
  }
  await withTransaction(ctx, (tx) => addSieImportDimensionsAndComparatives(tx, companyId, operationId, file, plan));
  await yieldToEventLoop();
  return withTransaction(ctx, async (tx) => {
    const first: ImportState = {
      phase: 'import',
      fiscal_year_id: years.fiscalYearId,
      opening_entry_id: await openSieImport(tx, companyId, operationId, file, plan, years),
      next: 0,
      summary: sieImportSummary(file, plan),
    };
    await job.checkpointIn(tx, 1, `Checked; 0 of ${total} verifications imported`, first);
    return first;
  });
}

const resultOf = (state: ImportState) => ({ ...state.summary, fiscal_year_id: state.fiscal_year_id, opening_entry_id: state.opening_entry_id });

/** One batch in its own transaction with the checkpoint after it. */
async function importBatch(job: Job, file: SieImportFile, from: ImportState, batch: readonly SieImportVerification[]): Promise<ImportState> {
  const total = file.verificationCount;
  return withTransaction(job.ctx, async (tx) => {
    await importSieBatch(tx, job.companyId, job.operationId, from.fiscal_year_id, batch);
    const next: ImportState = { ...from, next: from.next + batch.length };
    await job.checkpointIn(tx, 1 + (97 * next.next) / total, `${next.next} of ${total} verifications imported`, next);
    return next;
  });
}

/**
 * After the last batch, in a transaction of its own (on PGlite the completion together with a
 * batch held the one connection about 170 ms): the pending row goes, so all of the import appears
 * at once, and the next phase announces it.
 */
async function complete(job: Job, state: ImportState): Promise<AnnounceState> {
  return withTransaction(job.ctx, async (tx) => {
    const announced = announcing(await completeSieImport(tx, job.companyId, job.operationId), resultOf(state));
    await job.checkpointIn(tx, 99, 'Imported; announcing the entries', announced);
    return announced;
  });
}

const announcing = (accounts: string[], result: Record<string, unknown>): AnnounceState => ({ phase: 'announce', accounts, after: null, result });

/**
 * account.created for the accounts the import created, then journal_entry.committed for every
 * imported entry, in checkpointed batches (a completion that announced the accounts itself held
 * PGlite's one connection another 50-100 ms); then the result. The announcement's result is
 * what the operation ends with.
 */
async function announce(job: Job, from: AnnounceState): Promise<Record<string, unknown>> {
  let state = from;
  const accountBatch = SIE_IMPORT_ACCOUNT_BATCH[job.ctx.services.database.kind];
  for (;;) {
    const done = await withTransaction(job.ctx, async (tx) => {
      let next: AnnounceState;
      if (state.accounts.length > 0) {
        await announceSieImportAccounts(tx, job.companyId, state.accounts.slice(0, accountBatch));
        next = { ...state, accounts: state.accounts.slice(accountBatch) };
      } else {
        const last = await announceSieImport(tx, job.companyId, job.operationId, state.after);
        if (last === null) return true;
        next = { ...state, after: last };
      }
      await job.checkpointIn(tx, 99, 'Imported; announcing the entries', next, { cancellable: false });
      state = next;
      return false;
    });
    if (done) return state.result;
    await yieldToEventLoop();
  }
}

/**
 * Undoes an import that did not complete: records the outcome in the checkpoint (a rerun goes on
 * undoing), removes its entries batch by batch and then the rest, and ends the operation with
 * the outcome. Nothing to undo (the setup never committed, or the import had completed) ends it
 * at once.
 */
async function undo(job: Job, outcome: Outcome, removedBefore: number, cause?: DomainError): Promise<never> {
  let removed = removedBefore;
  if (await sieImportPending(job.ctx, job.companyId, job.operationId)) {
    const record = (tx: OperationContext) =>
      job.checkpointIn(tx, 0, `Undoing the import: ${removed} entries removed`, { phase: 'remove', outcome, removed }, { cancellable: false });
    await withTransaction(job.ctx, record);
    for (;;) {
      const count = await withTransaction(job.ctx, async (tx) => {
        const n = await removeSieImportEntries(tx, job.companyId, job.operationId);
        removed += n;
        await record(tx);
        return n;
      });
      if (count === 0) break;
      await yieldToEventLoop();
    }
    await withTransaction(job.ctx, (tx) => removeSieImportRest(tx, job.companyId, job.operationId));
  }
  if (outcome.status === 'cancelled') throw new Cancelled();
  throw cause ?? new DomainError(outcome.code as ErrorCode, { message: outcome.message });
}
