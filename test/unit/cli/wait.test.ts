import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { operationExample } from '../../../domain/operations/examples.ts';
import { Operation } from '../../../domain/operations/schemas.ts';
import { CLI_EXIT } from '../../../registry/cli-command.ts';
import { ERROR_CATALOG } from '../../../registry/error-catalog.ts';
import { registry } from '../../../registry/index.ts';
import { buildCommands, globalFlagsOf } from '../../../cli/client/spec.ts';
import { operationOf, outcomeOf, progressView } from '../../../cli/client/wait.ts';
import type { Io } from '../../../cli/client/run-command.ts';

/** --wait's pieces without a server (test/e2e/cli-wait.test.ts runs it against one). */

class Capture extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const example = Operation.parse(operationExample);
const state = (patch: Partial<Operation>): Operation => ({ ...example, ...patch });
const ioWith = (stderr: Capture): Io => ({ stdout: new Capture(false), stderr, readStdin: async () => '' }) as unknown as Io;

describe('--wait', () => {
  it('is offered exactly on the operations that answer 202 and are followed by getOperation', () => {
    const table = buildCommands(registry.operations);
    const waiting = table.commands.filter((spec) => globalFlagsOf(spec).includes('wait')).map((spec) => spec.op.id);
    const expected = registry.operations.filter((op) => op.surfaces.includes('cli') && op.status === 202 && op.pollWith === undefined).map((op) => op.id);
    expect(waiting.sort()).toEqual(expected.sort());
    // The three: an SIE import, a year-end close, recovering deliveries.
    expect(waiting).toEqual(expect.arrayContaining(['importSie', 'closeFiscalYear', 'recoverWebhookDeliveries']));
  });

  it('prints plain lines off a terminal, each state once', () => {
    const stderr = new Capture(false);
    const view = progressView(stderr);
    for (const progress of [0, 0, 40, 40, 100]) view.show(state({ status: progress === 100 ? 'succeeded' : 'running', progress, progress_message: null }));
    view.end();
    expect(stderr.text.split('\n').filter(Boolean)).toHaveLength(3);
    expect(stderr.text).not.toContain('\r');
  });

  it('redraws one bar on a terminal and ends it with a newline', () => {
    const stderr = new Capture(true);
    const view = progressView(stderr);
    view.show(state({ status: 'running', progress: 50, progress_message: 'Verifikationer 10 av 20' }));
    view.end();
    expect(stderr.text).toBe(`\r[${'#'.repeat(15)}${'-'.repeat(15)}] running  50% Verifikationer 10 av 20\x1b[K\n`);
  });

  it('exits 0 on success, with the error class on failure, CLI_EXIT.cancelled on cancel', () => {
    expect(outcomeOf(state({ status: 'succeeded' }), ioWith(new Capture(false)))).toBe(CLI_EXIT.ok);
    const cancelled = new Capture(false);
    expect(outcomeOf(state({ status: 'cancelled' }), ioWith(cancelled))).toBe(CLI_EXIT.cancelled);
    expect(cancelled.text).toContain('cancelled');
    const failed = new Capture(false);
    const code = outcomeOf(state({ status: 'failed', error: { code: 'NOT_FOUND', message: 'Gone.' } }), ioWith(failed));
    expect(ERROR_CATALOG.NOT_FOUND.status).toBe(404);
    expect(code).toBe(CLI_EXIT.notFound);
    expect(failed.text).toContain('failed: NOT_FOUND: Gone.');
  });

  it('refuses an answer that is not an operation', () => {
    expect(() => operationOf({ id: 'x' }, 'importSie')).toThrow(/did not answer with an operation/);
  });
});
