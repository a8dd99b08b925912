import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Principal, Services, OperationContext } from '../context.ts';
import { withTransaction } from '../context.ts';
import { DomainError } from '../kernel/errors.ts';
import { emitEvent } from '../events/emit.ts';
import { startClaimLoop, type ClaimLoop } from '../background/claim-loop.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { OPERATIONS_CHANNEL, toOperation, type OperationRow } from './store.ts';
import { readOperationInput } from './inputs.ts';
import type { OperationKind } from './schemas.ts';

/**
 * Runs queued operations in any number of processes on one database. A claim takes one row with
 * FOR UPDATE SKIP LOCKED and holds it under a lease the runner renews while it works; a row whose
 * holder died (its lease expired, by the database's clock) is claimed again and resumes from its
 * checkpoint, so every kind's steps are safe to rerun.
 */

/** How long a claim lasts without renewal: long enough to ride out a slow statement. */
export const LEASE_MS = 30_000;
/** Renewed this often while a job runs, whatever the job is doing. */
export const HEARTBEAT_MS = 10_000;
/** Without a notification, look for work (and expired leases) this often. */
export const IDLE_POLL_MS = 1_000;

/**
 * Heavy operations (SIE imports) a company may have running at once: one company's queue of
 * imports cannot take every runner, and its imports never plan against each other's unfinished
 * books. Another company's work is claimed past the waiting ones.
 */
export const MAX_HEAVY_PER_COMPANY = 1;

/** Thrown inside a job when its lease was lost (another runner owns the row now): stop quietly. */
export class LeaseLost extends Error {
  constructor(readonly operationId: string) {
    super(`lease on operation ${operationId} was lost`);
  }
}

/** Thrown by a job at a checkpoint once cancellation was requested: ends the operation cancelled. */
export class Cancelled extends Error {}

export interface Job {
  operationId: string;
  companyId: string;
  input: Record<string, unknown>;
  /** The last checkpoint a previous attempt recorded, if any. */
  checkpoint: unknown;
  attempt: number;
  /** Cancellation was requested before this attempt began (e.g. while no runner held the operation). */
  cancelRequested: boolean;
  /** A context acting for the operation, holding exactly the scopes its kind needs. */
  ctx: OperationContext;
  /**
   * Records progress (and optionally a checkpoint) in `tx` — the same transaction as the work it
   * describes — renews the lease, and throws Cancelled when cancellation was requested or
   * LeaseLost when another runner took over. With `{ cancellable: false }` a requested cancellation
   * does not throw: for work that must run to its end once begun (undoing an import, say).
   */
  checkpointIn(tx: OperationContext, progress: number, message: string, checkpoint?: unknown, options?: { cancellable?: boolean }): Promise<void>;
  /** The uploaded input (SIE file) chunk by chunk (readOperationInput); nothing when the operation has none. */
  file(): AsyncIterable<Uint8Array>;
}

export type JobHandler = (job: Job) => Promise<Record<string, unknown>>;

export interface KindDefinition {
  handler: JobHandler;
  /** At most MAX_HEAVY_PER_COMPANY heavy operations of a company run at once (define-kind.ts). */
  heavy?: boolean;
  /** The scopes the job acts with (it was authorised when it was queued). */
  scopes: readonly string[];
}

export interface RunnerOptions {
  kinds: Partial<Record<OperationKind, KindDefinition>>;
  holder?: string;
  idlePollMs?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  /** Told each operation this runner ended, with its kind and final status (metrics). Must not throw. */
  onFinished?: (kind: string, status: 'succeeded' | 'failed' | 'cancelled') => void;
  /** The first claim waits for this (ClaimLoopOptions.startAfter). */
  startAfter?: Promise<unknown>;
}

export interface Runner {
  readonly holder: string;
  /** Starts the loop: claim, run, sleep until notified or the idle poll. */
  start(): void;
  /** Claims and runs at most one operation; true when it ran one. For tests and the loop. */
  runOnce(): Promise<boolean>;
  stop(): Promise<void>;
  done: Promise<void>;
}

const SELECT_COLUMNS = `id, company_id AS "companyId", kind, status, input, progress, progress_message AS "progressMessage", checkpoint, result,
  error_code AS "errorCode", error_message AS "errorMessage", cancel_requested AS "cancelRequested", attempts,
  lease_holder AS "leaseHolder", lease_expires_at AS "leaseExpiresAt", created_by_api_key_id AS "createdByApiKeyId",
  created_at AS "createdAt", started_at AS "startedAt", finished_at AS "finishedAt"`;

const OUTCOME_EVENTS = {
  succeeded: 'operation.succeeded',
  failed: 'operation.failed',
  cancelled: 'operation.cancelled',
} as const;

export function createOperationRunner(services: Services, options: RunnerOptions): Runner {
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const kinds = Object.keys(options.kinds);
  const heavyKinds = Object.entries(options.kinds)
    .filter(([, definition]) => definition?.heavy)
    .map(([kind]) => kind);

  async function claim(): Promise<OperationRow | null> {
    const [row] = await services.database.prisma.$queryRawUnsafe<OperationRow[]>(
      `UPDATE operations o
          SET status = 'running', lease_holder = $1, lease_expires_at = now() + ($2 || ' milliseconds')::interval,
              attempts = o.attempts + 1, started_at = coalesce(o.started_at, now())
        WHERE o.id = (SELECT c.id FROM operations c
                       WHERE c.kind = ANY($3::text[])
                         AND (c.status = 'queued' OR (c.status = 'running' AND c.lease_expires_at < now()))
                         AND NOT (c.kind = ANY($4::text[])
                                  AND (SELECT count(*) FROM operations r
                                        WHERE r.company_id = c.company_id AND r.id <> c.id AND r.status = 'running'
                                          AND r.kind = ANY($4::text[]) AND r.lease_expires_at >= now()) >= $5)
                       ORDER BY c.created_at, c.id
                       LIMIT 1
                         FOR UPDATE SKIP LOCKED)
        RETURNING ${SELECT_COLUMNS}`,
      holder,
      String(leaseMs),
      kinds,
      heavyKinds,
      MAX_HEAVY_PER_COMPANY,
    );
    return row ?? null;
  }

  /** Renews the lease only while this runner still holds it; false means it was lost. */
  async function renew(tx: OperationContext['db'], id: string): Promise<{ cancelRequested: boolean } | null> {
    const [row] = await tx.$queryRawUnsafe<{ cancelRequested: boolean }[]>(
      `UPDATE operations SET lease_expires_at = now() + ($3 || ' milliseconds')::interval
        WHERE id = $1::uuid AND status = 'running' AND lease_holder = $2
        RETURNING cancel_requested AS "cancelRequested"`,
      id,
      holder,
      String(leaseMs),
    );
    return row ?? null;
  }

  /** Ends a claimed operation and emits its event in one transaction, if this runner still holds it. */
  async function finish(
    row: OperationRow,
    outcome: { status: 'succeeded'; result: Record<string, unknown> } | { status: 'failed'; code: string; message: string } | { status: 'cancelled' },
  ): Promise<void> {
    const ctx = systemContext(services, row, []);
    let recorded = false;
    await withTransaction(ctx, async (tx) => {
      const [updated] = await tx.db.$queryRawUnsafe<OperationRow[]>(
        `UPDATE operations
            SET status = $3, finished_at = now(), lease_holder = NULL, lease_expires_at = NULL,
                progress = CASE WHEN $3 = 'succeeded' THEN 100 ELSE progress END,
                progress_message = $4, result = $5::jsonb, error_code = $6, error_message = $7
          WHERE id = $1::uuid AND status = 'running' AND lease_holder = $2
          RETURNING ${SELECT_COLUMNS}`,
        row.id,
        holder,
        outcome.status,
        outcome.status === 'succeeded' ? 'Done' : outcome.status === 'cancelled' ? 'Cancelled' : 'Failed',
        outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
        outcome.status === 'failed' ? outcome.code : null,
        outcome.status === 'failed' ? outcome.message.slice(0, 2000) : null,
      );
      if (!updated) return; // deleted while running, or another runner took it over: nothing to record
      await emitEvent(tx, row.companyId, OUTCOME_EVENTS[outcome.status], toOperation(updated), null);
      recorded = true;
    });
    if (recorded) options.onFinished?.(row.kind, outcome.status);
  }

  async function run(row: OperationRow): Promise<void> {
    const kind = options.kinds[row.kind as OperationKind] as KindDefinition;
    const heartbeat = setInterval(() => {
      renew(services.database.prisma, row.id).catch((error: unknown) => services.logger.warn({ err: error, operation: row.id }, 'lease renewal failed'));
    }, heartbeatMs);
    heartbeat.unref();
    const job: Job = {
      operationId: row.id,
      companyId: row.companyId,
      input: (row.input ?? {}) as Record<string, unknown>,
      checkpoint: row.checkpoint,
      attempt: row.attempts,
      cancelRequested: row.cancelRequested,
      ctx: systemContext(services, row, kind.scopes),
      async checkpointIn(tx, progress, message, checkpoint, options) {
        const [state] = await tx.db.$queryRawUnsafe<{ cancelRequested: boolean }[]>(
          `UPDATE operations
              SET progress = $3, progress_message = $4, lease_expires_at = now() + ($5 || ' milliseconds')::interval,
                  checkpoint = CASE WHEN $6::boolean THEN $7::jsonb ELSE checkpoint END
            WHERE id = $1::uuid AND status = 'running' AND lease_holder = $2
            RETURNING cancel_requested AS "cancelRequested"`,
          row.id,
          holder,
          Math.max(0, Math.min(100, Math.round(progress))),
          message,
          String(leaseMs),
          checkpoint !== undefined,
          JSON.stringify(checkpoint ?? null),
        );
        if (!state) throw new LeaseLost(row.id);
        if (state.cancelRequested && options?.cancellable !== false) throw new Cancelled();
      },
      file: () => readOperationInput({ services, db: services.database.prisma }, row.id),
    };
    try {
      const result = await kind.handler(job);
      await finish(row, { status: 'succeeded', result });
    } catch (error) {
      if (error instanceof LeaseLost) {
        services.logger.warn({ operation: row.id }, 'operation lease lost; another runner continues it');
      } else if (error instanceof Cancelled) {
        await finish(row, { status: 'cancelled' });
      } else if (error instanceof DomainError) {
        await finish(row, { status: 'failed', code: error.code, message: error.message });
      } else if (isDatabaseUnavailable(error)) {
        // Not the job's fault (the database restarted): its lease runs out and a claim resumes it
        // from its last checkpoint, where failing it would end it for good.
        services.logger.warn({ err: error, operation: row.id, kind: row.kind }, 'operation interrupted: database unavailable; resumes when its lease expires');
      } else {
        services.logger.error({ err: error, operation: row.id, kind: row.kind }, 'operation failed unexpectedly');
        await finish(row, {
          status: 'failed',
          code: 'INTERNAL_ERROR',
          message: 'The operation failed unexpectedly; retry it, or contact support with its id.',
        });
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function runOnce(): Promise<boolean> {
    const row = await claim();
    if (!row) return false;
    await run(row);
    return true;
  }

  let loop: ClaimLoop | null = null;
  const runner: Runner = {
    holder,
    runOnce,
    stop: async () => {
      await loop?.stop();
    },
    start: () => {
      loop = startClaimLoop(services, {
        name: 'operations',
        channel: OPERATIONS_CHANNEL,
        idlePollMs: options.idlePollMs ?? IDLE_POLL_MS,
        round: runOnce,
        failureMessage: 'operation runner: claim failed; retrying',
        startAfter: options.startAfter,
      });
    },
    get done() {
      return loop?.done ?? Promise.resolve();
    },
  };
  return runner;
}

/** The job's actor: the key that queued it, acting with the scopes its kind needs. */
function systemContext(services: Services, row: OperationRow, scopes: readonly string[]): OperationContext {
  const actor: Principal = {
    apiKeyId: row.createdByApiKeyId ?? '00000000-0000-0000-0000-000000000000',
    apiKeyName: `operation ${row.id}`,
    userId: '00000000-0000-0000-0000-000000000000',
    companyId: row.companyId,
    scopes: [...scopes],
    mode: 'test',
    rateLimitPerMinute: 0,
  };
  return { services, actor, requestId: `op_${row.id}`, db: services.database.prisma, inTransaction: false, dryRun: false };
}
