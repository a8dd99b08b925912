import { setTimeout as sleep } from 'node:timers/promises';
import { Operation, TERMINAL_STATUSES } from '../../domain/operations/schemas.ts';
import { CLI_NAME } from '../../registry/cli-command.ts';
import type { ErrorCode } from '../../domain/kernel/errors.ts';
import { ERROR_CATALOG } from '../../registry/error-catalog.ts';
import { CliError, EXIT, exitCodeForStatus } from './errors.ts';
import { send } from './http.ts';
import { buildRequest } from './request.ts';
import type { Settings } from './settings.ts';
import type { CommandSpec } from './spec.ts';
import type { Io } from './run-command.ts';

/**
 * `--wait`: follows the operation a 202 answer started with the poll command (getOperation) until
 * its status is final. Progress goes to stderr — a bar redrawn in place on a terminal, one plain
 * line per change otherwise (logs, CI) — and the outcome is the exit code: 0 succeeded; a failed
 * operation exits with its error's class (the catalogue's HTTP status, as a refused request
 * would), a cancelled one with CLI_EXIT.cancelled.
 */

/** Between polls; the work is measured in seconds (an SIE import, a year-end close). */
export const WAIT_POLL_INTERVAL_MS = 1000;
const BAR_WIDTH = 30;

export type WaitedOperation = Operation;

/** The operation in an answer's data, or a loud failure: --wait must not guess. */
export function operationOf(data: unknown, from: string): WaitedOperation {
  const parsed = Operation.safeParse(data);
  if (!parsed.success) throw new CliError(`--wait: ${from} did not answer with an operation.`, EXIT.server);
  return parsed.data;
}

const isFinal = (operation: WaitedOperation): boolean => TERMINAL_STATUSES.includes(operation.status);

/** One description of a state, shared by the bar and the plain lines. */
const stateText = (operation: WaitedOperation): string =>
  `${operation.status} ${String(operation.progress).padStart(3)}%${operation.progress_message ? ` ${operation.progress_message}` : ''}`;

export interface ProgressView {
  show(operation: WaitedOperation): void;
  end(): void;
}

/** A terminal gets a bar redrawn in place (\r, erase to end of line); anything else plain lines, each state once. */
export function progressView(stderr: Io['stderr']): ProgressView {
  let last = '';
  let drawn = false;
  if (stderr.isTTY) {
    return {
      show(operation) {
        const filled = Math.round((operation.progress / 100) * BAR_WIDTH);
        stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${stateText(operation)}\x1b[K`);
        drawn = true;
      },
      end() {
        if (drawn) stderr.write('\n');
      },
    };
  }
  return {
    show(operation) {
      const line = `Operation ${operation.id} (${operation.kind}): ${stateText(operation)}`;
      if (line !== last) stderr.write(`${line}\n`);
      last = line;
    },
    end() {},
  };
}

/** The poll command's path fields filled from the operation: its company and its own id. */
function pollFields(poll: CommandSpec, operation: WaitedOperation): Map<string, string[]> {
  return new Map(
    poll.flags.filter((flag) => flag.location === 'path').map((flag) => [flag.flag, [flag.field === 'companyId' ? operation.company_id : operation.id]]),
  );
}

/** Polls until the operation is final; returns it. Ctrl-C stops the waiting, not the work. */
export async function waitForOperation(
  first: WaitedOperation,
  poll: CommandSpec,
  settings: Settings,
  io: Io,
  options: { signal?: AbortSignal; intervalMs?: number } = {},
): Promise<WaitedOperation> {
  const view = progressView(io.stderr);
  let operation = first;
  try {
    view.show(operation);
    while (!isFinal(operation)) {
      await sleep(options.intervalMs ?? WAIT_POLL_INTERVAL_MS, undefined, options.signal ? { signal: options.signal } : {});
      const request = await buildRequest(poll, { fields: pollFields(poll, operation), dryRun: false }, settings, io);
      const answer = await send(request, options.signal ? { signal: options.signal } : {});
      operation = operationOf(answer.kind === 'json' ? answer.data : null, poll.op.id);
      view.show(operation);
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
    throw new CliError(
      `Stopped waiting; operation ${operation.id} goes on (${operation.status}).`,
      EXIT.server,
      `Follow it with: ${CLI_NAME} ${poll.group} ${poll.name} ${[...pollFields(poll, operation)].map(([flag, [value]]) => `--${flag} ${value}`).join(' ')}`,
    );
  } finally {
    view.end();
  }
  return operation;
}

/** The exit code of a final operation; a failure is also told on stderr in the catalogue's words. */
export function outcomeOf(operation: WaitedOperation, io: Io): number {
  if (operation.status === 'succeeded') return EXIT.ok;
  if (operation.status === 'cancelled') {
    io.stderr.write(`Error: operation ${operation.id} was cancelled.\n`);
    return EXIT.cancelled;
  }
  const code = operation.error?.code;
  const entry = code !== undefined && code in ERROR_CATALOG ? ERROR_CATALOG[code as ErrorCode] : undefined;
  io.stderr.write(`Error: operation ${operation.id} failed: ${code ?? 'unknown error'}: ${operation.error?.message ?? 'no message'}\n`);
  if (entry?.recoveryHint) io.stderr.write(`Hint: ${entry.recoveryHint}\n`);
  return entry ? exitCodeForStatus(entry.status) : EXIT.server;
}
