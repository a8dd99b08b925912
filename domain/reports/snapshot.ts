import { TRANSACTION_OPTIONS } from '../db/client.ts';
import type { OperationContext } from '../context.ts';
import { byteChannel, type ByteSink } from './byte-stream.ts';

/**
 * Every report reads one snapshot of the books: a read-only REPEATABLE READ transaction, so the
 * totals aggregated in SQL and the rows streamed page by page describe the same committed lines,
 * even while other requests commit entries. (PGlite runs one transaction at a time, where the
 * setting changes nothing; on PostgreSQL it is what keeps a long export consistent.)
 */
const SNAPSHOT = 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY';

/** A streamed export may outlive an ordinary request; a reader stalled this long loses its export. */
export const STREAM_TRANSACTION_TIMEOUT_MS = 15 * 60_000;

export async function withSnapshot<T>(ctx: OperationContext, fn: (tx: OperationContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  return ctx.services.database.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(SNAPSHOT);
    return fn({ ...ctx, db: tx, inTransaction: true });
  }, TRANSACTION_OPTIONS);
}

/** The response has begun when a producer fails: all that is left is to abort it, and log why. */
function abort(ctx: OperationContext, fail: (error: unknown) => void, error: unknown): void {
  ctx.services.logger.error({ err: error, request_id: ctx.requestId }, 'streamed report failed');
  fail(error);
}

/** A byte stream from a producer that needs no database (its data was read already). */
export function streamFrom(ctx: OperationContext, produce: (sink: ByteSink) => Promise<void>): ReadableStream<Uint8Array> {
  const channel = byteChannel();
  produce(channel.sink).then(channel.close, (error: unknown) => {
    if (!channel.cancelled()) abort(ctx, channel.fail, error);
  });
  return channel.stream;
}

/**
 * A byte stream produced inside one snapshot transaction that stays open until the last byte is
 * taken (or the reader cancels). `open` runs first, in the transaction: its checks (an unknown
 * fiscal year, say) reject the returned promise before any byte is sent, so they still answer as
 * ordinary errors. It returns the producer, which writes to the sink and awaits `ready()` between
 * pages — backpressure, so memory stays flat however large the export.
 */
export function streamFromSnapshot(
  ctx: OperationContext,
  open: (tx: OperationContext) => Promise<(sink: ByteSink) => Promise<void>>,
): Promise<ReadableStream<Uint8Array>> {
  return new Promise((resolve, reject) => {
    const channel = byteChannel();
    let started = false;
    ctx.services.database.prisma
      .$transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(SNAPSHOT);
          const produce = await open({ ...ctx, db: tx, inTransaction: true });
          started = true;
          resolve(channel.stream);
          await produce(channel.sink);
        },
        { ...TRANSACTION_OPTIONS, timeout: STREAM_TRANSACTION_TIMEOUT_MS },
      )
      .then(channel.close, (error: unknown) => {
        if (!started) reject(error);
        else if (!channel.cancelled()) abort(ctx, channel.fail, error);
      });
  });
}
