import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CliError, EXIT, usageError } from './errors.ts';
import { send, type ApiAnswer } from './http.ts';
import { listOf, renderHuman } from './render.ts';
import { buildRequest, type CommandInput, type InputSource } from './request.ts';
import type { Settings } from './settings.ts';
import type { CommandSpec, CommandTable } from './spec.ts';
import { DEFAULT_POLL_OPERATION } from '../../registry/define-operation.ts';
import { operationOf, outcomeOf, waitForOperation } from './wait.ts';

/** Where a command writes: stdout for the answer, stderr for everything said about it. */
export interface Io extends InputSource {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface OutputOptions {
  json: boolean;
  output?: string;
  all: boolean;
  /** Poll the started operation (202) to its end; see wait.ts. */
  wait?: boolean;
}

const say = (io: Io, line: string): void => void io.stderr.write(`${line}\n`);

/** Runs one operation command and prints its answer; returns the exit code (errors are thrown). */
export async function runCommand(
  spec: CommandSpec,
  input: CommandInput,
  output: OutputOptions,
  settings: Settings,
  io: Io,
  context: { table?: CommandTable; signal?: AbortSignal } = {},
): Promise<number> {
  if (output.all) return runAll(spec, input, output, settings, io);
  const request = await buildRequest(spec, input, settings, io);
  if (request.generatedIdempotencyKey) {
    say(
      io,
      `Idempotency key: ${request.generatedIdempotencyKey} (to retry this exact request safely, pass --idempotency-key ${request.generatedIdempotencyKey})`,
    );
  }
  const answer = await send(request);
  if (answer.headers.get('idempotent-replayed') === 'true')
    say(io, 'Replayed: the stored result of an earlier request with this idempotency key; nothing was written again.');
  if (answer.kind === 'json' && answer.meta.dry_run === true) say(io, 'Dry run: every check passed and nothing was written.');
  const dryRun = answer.kind === 'json' && answer.meta.dry_run === true;
  if (output.wait && answer.status === 202 && !dryRun) return waitFor(answer, output, settings, io, context);
  if (output.wait) say(io, dryRun ? 'Nothing to wait for: a dry run starts no work.' : `Nothing to wait for: HTTP ${answer.status} is the final answer.`);
  await printAnswer(spec, answer, output, io);
  if (answer.kind === 'json' && !output.json) {
    const pagination = answer.meta.pagination as { has_more?: boolean; next_cursor?: string | null } | undefined;
    if (pagination?.has_more && pagination.next_cursor) say(io, `More results: pass --cursor ${pagination.next_cursor}, or --all for every page.`);
  }
  return 0;
}

async function printAnswer(spec: CommandSpec, answer: ApiAnswer, output: OutputOptions, io: Io): Promise<void> {
  if (answer.kind === 'empty') {
    say(io, `Done: ${spec.op.summary.toLowerCase()} (HTTP ${answer.status}, no content).`);
    return;
  }
  if (answer.kind === 'binary') return writeBinary(answer, output, io);
  await printData(answer.data, output, io);
}

async function printData(data: unknown, output: OutputOptions, io: Io): Promise<void> {
  const json = `${JSON.stringify(data, null, 2)}\n`;
  if (output.output) {
    await writeFile(output.output, json);
    say(io, `Wrote ${Buffer.byteLength(json)} bytes of JSON to ${output.output}.`);
    return;
  }
  io.stdout.write(output.json ? json : renderHuman(data));
}

/** Non-JSON answers (PDFs, SIE files, documents) stream to --output or stdout, never to a terminal. */
async function writeBinary(answer: Extract<ApiAnswer, { kind: 'binary' }>, output: OutputOptions, io: Io): Promise<void> {
  const source = Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>);
  let bytes = 0;
  source.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  if (output.output) {
    await pipeline(source, createWriteStream(output.output));
    say(io, `Wrote ${bytes} bytes (${answer.contentType}) to ${output.output}.`);
    return;
  }
  if (io.stdout.isTTY && !answer.contentType.startsWith('text/')) {
    source.destroy();
    throw usageError(`The answer is ${answer.contentType}; it would garble the terminal.`, 'Write it to a file with --output <file>, or redirect stdout.');
  }
  // stdout stays open for whatever the caller writes next.
  await pipeline(source, new Writable({ write: (chunk, _encoding, done) => void io.stdout.write(chunk, done) }));
}

/** Follows the cursor to the end, collecting the one list; progress on stderr, one page a line. */
async function runAll(spec: CommandSpec, input: CommandInput, output: OutputOptions, settings: Settings, io: Io): Promise<number> {
  if (input.fields.has('cursor')) throw usageError('--all starts at the first page; leave out --cursor.');
  const limitFlag = spec.flags.find((flag) => flag.location === 'query' && flag.field === 'limit');
  const pageSize = input.fields.get('limit')?.at(-1) ?? (limitFlag?.maximum !== undefined ? String(limitFlag.maximum) : undefined);
  let key: string | null = null;
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const request = await buildRequest(spec, { ...input, query: { ...(pageSize && { limit: pageSize }), ...(cursor && { cursor }) } }, settings, io);
    const answer = await send(request);
    if (answer.kind !== 'json') throw new CliError(`--all needs a JSON list answer; ${spec.op.id} answered ${answer.kind}.`, EXIT.server);
    const list = listOf(answer.data);
    if (!list) throw new CliError(`--all needs a list answer; ${spec.op.id} did not return one list.`, EXIT.server);
    key = list.key;
    items.push(...list.items);
    const pagination = answer.meta.pagination as { has_more?: boolean; next_cursor?: string | null } | undefined;
    io.stderr.write(`Fetched ${items.length} ${key.replace(/_/g, ' ')} (page ${page})${pagination?.has_more ? '…' : ', done.'}\n`);
    if (!pagination?.has_more || !pagination.next_cursor) break;
    // A server that hands back a cursor it already gave would loop forever: stop loudly instead.
    if (seen.has(pagination.next_cursor)) throw new CliError(`The server repeated a cursor on page ${page}; stopping.`, EXIT.server);
    seen.add(pagination.next_cursor);
    cursor = pagination.next_cursor;
  }
  await printData({ [key ?? 'items']: items }, output, io);
  return 0;
}

/** --wait: follow the started operation, then print it (always JSON: its result is the point) and exit with its outcome. */
async function waitFor(
  answer: ApiAnswer,
  output: OutputOptions,
  settings: Settings,
  io: Io,
  context: { table?: CommandTable; signal?: AbortSignal },
): Promise<number> {
  const poll = context.table?.commands.find((command) => command.op.id === DEFAULT_POLL_OPERATION);
  if (!poll) throw new CliError(`--wait needs the ${DEFAULT_POLL_OPERATION} command, which this client does not have.`, EXIT.usage);
  const started = operationOf(answer.kind === 'json' ? answer.data : null, 'the 202 answer');
  const final = await waitForOperation(started, poll, settings, io, context.signal ? { signal: context.signal } : {});
  await printData(final, { ...output, json: true }, io);
  return outcomeOf(final, io);
}
