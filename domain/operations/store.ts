import { z } from 'zod';
import type { OperationContext } from '../context.ts';
import { requireScope, withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetTimestampSql, type PaginationMeta, type PaginationQuery, keysetPage } from '../kernel/pagination.ts';
import { Operation, TERMINAL_STATUSES, type OperationKind, type OperationListQuery, type OperationStatus } from './schemas.ts';
import { booksInstant } from '../kernel/books-dates.ts';
import type { ByteSource } from '../kernel/byte-source.ts';
import { storeOperationInput } from './inputs.ts';

/** Channel runners LISTEN on; notified when an operation is queued. */
export const OPERATIONS_CHANNEL = 'operations';

export interface OperationRow {
  id: string;
  companyId: string;
  kind: string;
  status: string;
  input: unknown;
  progress: number;
  progressMessage: string | null;
  checkpoint: unknown;
  result: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  cancelRequested: boolean;
  attempts: number;
  leaseHolder: string | null;
  leaseExpiresAt: Date | null;
  createdByApiKeyId: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export const toOperation = (row: OperationRow): Operation =>
  Operation.parse({
    id: row.id,
    company_id: row.companyId,
    kind: row.kind,
    status: row.status,
    progress: row.progress,
    progress_message: row.progressMessage,
    result: row.result ?? null,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    cancel_requested: row.cancelRequested,
    attempts: row.attempts,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  });

export const isTerminal = (status: string): boolean => (TERMINAL_STATUSES as readonly string[]).includes(status);

const operationNotFound = (): DomainError => new DomainError('NOT_FOUND', { message: 'No such operation in this company.' });
const finished = (status: string): DomainError =>
  new DomainError('OPERATION_FINISHED', { message: `The operation is ${status}; a finished operation never changes.` });

/** Queues work for the runners; bulky input (an uploaded file) goes beside the row, in chunks (inputs.ts). */
export async function enqueueOperation(
  ctx: OperationContext,
  companyId: string,
  kind: OperationKind,
  input: Record<string, unknown>,
  content?: ByteSource,
): Promise<Operation> {
  requireScope(ctx, 'operations:write');
  return withTransaction(ctx, async (tx) => {
    const row = await tx.db.operation.create({
      data: { companyId, kind, input: input as object, createdByApiKeyId: tx.actor?.apiKeyId ?? null, createdAt: tx.services.now() },
    });
    if (content) await storeOperationInput(tx, companyId, row.id, content);
    await tx.db.$executeRaw`SELECT pg_notify(${OPERATIONS_CHANNEL}, '')`;
    return toOperation(row);
  });
}

export async function getOperation(ctx: OperationContext, companyId: string, operationId: string): Promise<Operation> {
  requireScope(ctx, 'operations:read');
  const row = await ctx.db.operation.findFirst({ where: { companyId, id: operationId } });
  if (!row) throw operationNotFound();
  return toOperation(row);
}

const LIST_NAME = 'operations';
const ListKey = z.object({ at: booksInstant({ precision: 6 }), id: z.uuid() });

/** Newest first, (created_at, id) descending. */
export async function listOperations(
  ctx: OperationContext,
  companyId: string,
  query: OperationListQuery & PaginationQuery,
): Promise<{ operations: Operation[]; pagination: PaginationMeta }> {
  requireScope(ctx, 'operations:read');
  const after = decodeKeysetCursor(LIST_NAME, query.cursor, ListKey);
  const rows = await ctx.db.$queryRawUnsafe<(OperationRow & { key: string })[]>(
    `SELECT id, company_id AS "companyId", kind, status, input, progress, progress_message AS "progressMessage", checkpoint, result,
            error_code AS "errorCode", error_message AS "errorMessage", cancel_requested AS "cancelRequested", attempts,
            lease_holder AS "leaseHolder", lease_expires_at AS "leaseExpiresAt", created_by_api_key_id AS "createdByApiKeyId",
            created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt", ${keysetTimestampSql('created_at')} AS key
       FROM operations
      WHERE company_id = $1::uuid AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR kind = $3)
        AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::uuid))
      ORDER BY created_at DESC, id DESC
      LIMIT $6`,
    companyId,
    query.status ?? null,
    query.kind ?? null,
    after?.at ?? null,
    after?.id ?? null,
    query.limit + 1,
  );
  const { page, pagination } = keysetPage(rows, query.limit, (last) => encodeKeysetCursor(LIST_NAME, { at: last.key, id: last.id }));
  return { operations: page.map(toOperation), pagination };
}

/**
 * Queued → cancelled at once (operation.cancelled); running → cancellation requested, and the
 * runner ends it cancelled at its next checkpoint. A finished operation answers OPERATION_FINISHED.
 */
export async function cancelOperation(ctx: OperationContext, companyId: string, operationId: string): Promise<Operation> {
  requireScope(ctx, 'operations:write');
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.$queryRaw<{ status: OperationStatus }[]>`
      SELECT status FROM operations WHERE company_id = ${companyId}::uuid AND id = ${operationId}::uuid FOR UPDATE`;
    if (!row) throw operationNotFound();
    if (isTerminal(row.status)) throw finished(row.status);
    if (row.status === 'queued') {
      const cancelled = toOperation(
        await tx.db.operation.update({
          where: { id: operationId },
          data: { status: 'cancelled', finishedAt: tx.services.now(), progressMessage: 'Cancelled before it started' },
        }),
      );
      await emitEvent(tx, companyId, 'operation.cancelled', cancelled, null);
      return cancelled;
    }
    return toOperation(await tx.db.operation.update({ where: { id: operationId }, data: { cancelRequested: true } }));
  });
}

/** Queued and running operations may be deleted (spec); finished ones are the record and stay. */
export async function deleteOperation(ctx: OperationContext, companyId: string, operationId: string): Promise<void> {
  requireScope(ctx, 'operations:write');
  await withTransaction(ctx, async (tx) => {
    // An SIE import that has written hidden rows is undone by its runner, not dropped (docs/sie.md).
    const pending = await tx.db.pendingImport.findFirst({ where: { companyId, operationId }, select: { operationId: true } });
    if (pending) {
      throw new DomainError('CONFLICT', {
        message:
          'This SIE import has written rows that only its runner can remove: cancel it instead (POST …/cancel); it then ends cancelled with nothing left behind.',
      });
    }
    const deleted = await tx.db.operation.deleteMany({ where: { companyId, id: operationId, status: { in: ['queued', 'running'] } } });
    if (deleted.count === 1) return;
    const row = await tx.db.operation.findFirst({ where: { companyId, id: operationId }, select: { status: true } });
    if (!row) throw operationNotFound();
    throw finished(row.status);
  });
}
