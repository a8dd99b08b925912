import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { DomainError } from '../domain/kernel/errors.ts';
import type { FileInput, Operation } from '../registry/define-operation.ts';
import { fileTooLarge, type Upload } from '../pipeline/invoke.ts';
import type { AppEnv } from '../http/app-env.ts';
import { Spool } from './spool.ts';

/**
 * Reads a `multipart/form-data` upload as it streams in: the file part's bytes are counted as they
 * arrive and reading stops — the rest of the request is never pulled — the moment they pass the
 * operation's limit. The file waits in a Spool (memory up to 1 MiB, then a temporary file) and
 * reaches the handler as a ByteSource, so no upload is ever held whole in memory; the caller
 * disposes the upload once the request is answered.
 */

export const MULTIPART = 'multipart/form-data';
/** Room beside the file for part headers and the small text fields (a declared length past file + this is refused unread). */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** Text fields beside a file are short (a description); anything longer is refused, not truncated. */
const MAX_FIELD_BYTES = 8 * 1024;
const MAX_PARTS = 16;

const invalid = (path: string, message: string): DomainError =>
  new DomainError('VALIDATION_ERROR', { message: `${path}: ${message}`, details: [{ path, message }] });

/** The upload of `op` from the request; scope and membership were checked before this runs. */
export async function readUpload(c: Context<AppEnv>, op: Pick<Operation, 'input'>): Promise<Upload> {
  const declared = op.input.file as FileInput;
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', {
      message: `Send the file as ${MULTIPART} with the file in the "${declared.field}" part.`,
      validAlternatives: [MULTIPART],
    });
  }
  // Whatever a refusal leaves unread, the Node adapter drains after the answer (a lingering close),
  // so the client reads the 413; closing the connection at once would reset it before it could.
  const declaredLength = Number(c.req.header('content-length') ?? 'NaN');
  if (declaredLength > declared.maxBytes + MULTIPART_OVERHEAD_BYTES) throw fileTooLarge(op);
  const source = requestBody(c);
  if (!source) return { fields: {}, file: null };
  return parseMultipart(source, contentType, op);
}

/**
 * The body as it arrives. On Node, the request itself when nothing has read it yet: the Request
 * body Hono would give wraps it with Readable.toWeb, which copies every chunk — twice the garbage
 * per byte received, and a refused upload's memory is exactly that garbage. Elsewhere (tests, other
 * runtimes), the standard Request body.
 */
function requestBody(c: Context<AppEnv>): Readable | ReadableStream<Uint8Array> | null {
  const incoming = c.env?.incoming;
  if (incoming instanceof Readable && incoming.readableFlowing === null && !incoming.readableEnded) return incoming;
  return c.req.raw.body;
}

/** Parses a multipart stream with busboy; the first failure wins and stops reading the source. */
export function parseMultipart(source: Readable | ReadableStream<Uint8Array>, contentType: string, op: Pick<Operation, 'input'>): Promise<Upload> {
  const declared = op.input.file as FileInput;
  const filePath = `body.${declared.field}`;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // The raw name goes to the domain, which keeps a sanitised display name (never a path).
      preservePath: true,
      // Clients send UTF-8 file names unencoded; busboy's default would read them as Latin-1.
      defParamCharset: 'utf8',
      // busboy signals its file limit on reaching it; one byte more lets a file of exactly maxBytes through.
      limits: { fieldSize: MAX_FIELD_BYTES, parts: MAX_PARTS, fields: MAX_PARTS, fileSize: declared.maxBytes + 1 },
    });
  } catch {
    return Promise.reject(invalid('body', `A ${MULTIPART} body needs a boundary parameter in its Content-Type.`));
  }

  return new Promise<Upload>((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    const spool = new Spool();
    let received = 0;
    let file: { filename: string | null } | null = null;
    let failure: DomainError | null = null;
    // The first failure wins; the answer waits until anything spooled to disk is gone.
    const fail = (error: DomainError): void => {
      if (failure) return;
      failure = error;
      void spool.dispose().finally(() => reject(error));
    };

    parser.on('file', (name, stream, info) => {
      // Once the parser is destroyed, every open file stream errors; the first failure is already recorded.
      stream.on('error', () => fail(invalid(filePath, 'The file part ended unexpectedly.')));
      if (name !== declared.field) {
        stream.resume();
        fail(invalid(`body.${name}`, `Unexpected file part; send the file in the "${declared.field}" part.`));
        return;
      }
      if (file) {
        stream.resume();
        fail(invalid(filePath, 'Send exactly one file; this request has more than one file part.'));
        return;
      }
      file = { filename: info.filename ?? null };
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > declared.maxBytes) fail(fileTooLarge(op));
        else if (!failure && !spool.write(chunk)) {
          // The disk is slower than the network: hold the parser (and so the socket) until it catches up.
          stream.pause();
          void spool.drained().then(() => stream.resume());
        }
      });
      stream.on('limit', () => fail(fileTooLarge(op)));
    });
    parser.on('field', (name, value, info) => {
      if (name === declared.field) fail(invalid(filePath, 'This part must be a file (send it with a filename).'));
      else if (info.valueTruncated) fail(invalid(`body.${name}`, `At most ${MAX_FIELD_BYTES} bytes.`));
      else if (name in fields) fail(invalid(`body.${name}`, 'Sent more than once.'));
      else fields[name] = value;
    });
    const tooMany = () => fail(invalid('body', `At most ${MAX_PARTS} parts.`));
    parser.on('partsLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', () => fail(invalid('body', `Malformed ${MULTIPART} body.`)));
    parser.on('finish', () => {
      if (failure) return;
      if (!file) {
        resolve({ fields, file: null });
        return;
      }
      const { filename } = file;
      spool.finish().then(
        (content) => resolve({ fields, file: { filename, content }, dispose: () => content.dispose() }),
        () => fail(invalid(filePath, 'The file could not be received.')),
      );
    });

    const feed = source instanceof Readable ? pumpNode : pump;
    feed(source as never, parser, () => failure !== null).catch(() => fail(invalid('body', 'The request body could not be read.')));
  });
}

/**
 * Feeds the parser with backpressure and stops pulling once `stop()` says so. The source is not
 * cancelled: over Node that would destroy the socket before the 413 is written; left unread, the
 * server answers and then drains or closes the connection itself.
 */
async function pump(source: ReadableStream<Uint8Array>, parser: busboy.Busboy, stop: () => boolean): Promise<void> {
  const reader = source.getReader();
  try {
    for (;;) {
      if (stop()) {
        parser.destroy();
        return;
      }
      const { done, value } = await reader.read();
      if (done) break;
      if (!parser.write(value)) await drained(parser);
    }
    parser.end();
  } finally {
    reader.releaseLock();
  }
}

/** pump() for a Node stream: paused rather than destroyed when stopped, for the same reason. */
async function pumpNode(source: Readable, parser: busboy.Busboy, stop: () => boolean): Promise<void> {
  for (;;) {
    if (stop()) {
      parser.destroy();
      return;
    }
    const chunk = source.read() as Buffer | null;
    if (chunk !== null) {
      if (!parser.write(chunk)) await drained(parser);
      continue;
    }
    if (source.readableEnded || source.destroyed) break;
    await readable(source);
  }
  if (source.errored) throw source.errored;
  parser.end();
}

/** Resolves when the stream has data, has ended, or failed. */
function readable(source: Readable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      for (const event of ['readable', 'end', 'close', 'error']) source.off(event, done);
      resolve();
    };
    for (const event of ['readable', 'end', 'close', 'error']) source.on(event, done);
  });
}

/** Resolves when the parser takes more input, or can never take any again. */
function drained(parser: busboy.Busboy): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      parser.off('drain', done);
      parser.off('close', done);
      resolve();
    };
    parser.on('drain', done);
    parser.on('close', done);
  });
}
