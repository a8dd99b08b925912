import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, READ_ONLY } from '../../../registry/define-operation.ts';
import { main, type MainIo } from '../../../cli/client/main.ts';
import { startLocalServer, type LocalServer } from '../../helpers/discovery.ts';

/**
 * Binary answers and multipart uploads: the CLI handles them by content type and by the declared
 * file input (`input.file`), so this drives it with two stand-in operations against a bare HTTP
 * server on loopback and checks the exact bytes both ways (test/integration/documents drives the
 * real ones).
 */

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 255, 254, 10]), Buffer.from('%%EOF\n')]);

const download = defineOperation({
  id: 'downloadThing',
  group: 'documents',
  method: 'GET',
  path: '/companies/{companyId}/things/{id}/content',
  summary: 'Download a thing',
  description: 'The bytes.',
  auth: { scope: 'documents:read' },
  ...READ_ONLY,
  input: { params: z.object({ companyId: z.uuid(), id: z.uuid() }) },
  output: z.unknown(),
  status: 200,
  examples: { response: null },
  surfaces: ['cli'],
  handler: async () => ({ data: null }),
});

const upload = defineOperation({
  id: 'uploadThing',
  group: 'documents',
  method: 'POST',
  path: '/companies/{companyId}/things',
  summary: 'Upload a thing',
  description: 'Multipart.',
  auth: { scope: 'documents:write' },
  risk: 'L1',
  idempotent: false,
  reversible: true,
  dryRun: false,
  idempotencyKey: 'optional',
  sideEffects: ['create'],
  input: {
    params: z.object({ companyId: z.uuid() }),
    body: z.object({ description: z.string().optional() }),
    file: { field: 'file', maxBytes: 1024 * 1024, contentTypes: ['application/pdf'], description: 'The thing.', exampleName: 'thing.pdf' },
  },
  output: z.object({ id: z.string(), size_bytes: z.number() }),
  status: 201,
  examples: { response: { id: 'x', size_bytes: 1 } },
  surfaces: ['cli'],
  handler: async () => ({ data: { id: 'x', size_bytes: 1 } }),
});

const COMPANY = '8b0f6c2e-4d1a-4e3b-9f7c-2a5d8e1b6c40';
const THING = '9f3c1a7e-2d6b-4e80-8c4f-5b1e7a3d9c62';

class Capture extends Writable {
  chunks: Buffer[] = [];
  constructor(readonly isTTY = false) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(Buffer.from(chunk));
    done();
  }
  bytes = (): Buffer => Buffer.concat(this.chunks);
}

describe('CLI binary answers and multipart uploads', () => {
  let server: LocalServer;
  const uploads: { contentType: string; form: FormData; accept: string | undefined }[] = [];
  const accepts: (string | undefined)[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'acct-cli-bin-'));

  beforeAll(async () => {
    server = await startLocalServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        if (request.method === 'GET') {
          accepts.push(request.headers.accept);
          response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length }).end(PDF);
          return;
        }
        const contentType = request.headers['content-type'] ?? '';
        const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': contentType } }).formData();
        uploads.push({ contentType, form, accept: request.headers.accept });
        const file = form.get('file') as File;
        response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id: 'new', size_bytes: file.size }, meta: {} }));
      });
    });
  });
  afterAll(async () => server?.close());

  async function run(argv: string[], tty = false): Promise<{ code: number; stdout: Buffer; stderr: string }> {
    const stdout = new Capture(tty);
    const stderr = new Capture();
    const io: MainIo = { stdout, stderr, env: { ACCOUNTING_API_URL: server.url, ACCOUNTING_API_KEY: 'sk_test_x' }, readStdin: async () => '' };
    const code = await main(argv, io, [download, upload]);
    return { code, stdout: stdout.bytes(), stderr: stderr.bytes().toString() };
  }

  it('writes a binary answer to --output byte for byte, asking for the media type given', async () => {
    const file = join(dir, 'thing.pdf');
    const result = await run(['documents', 'download-thing', '--company', COMPANY, '--id', THING, '--output', file, '--accept', 'application/pdf']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(file).equals(PDF)).toBe(true);
    expect(result.stderr).toContain(`Wrote ${PDF.length} bytes (application/pdf) to ${file}`);
    expect(result.stdout.length).toBe(0);
    expect(accepts.at(-1)).toBe('application/pdf');
    expect(server.paths.at(-1)).toBe(`/api/v1/companies/${COMPANY}/things/${THING}/content`);
  });

  it('streams it to stdout when piped, and refuses to garble a terminal', async () => {
    const piped = await run(['documents', 'download-thing', '--company', COMPANY, '--id', THING]);
    expect(piped.code).toBe(0);
    expect(piped.stdout.equals(PDF)).toBe(true);
    const terminal = await run(['documents', 'download-thing', '--company', COMPANY, '--id', THING], true);
    expect(terminal.code).toBe(2);
    expect(terminal.stderr).toContain('--output');
    expect(terminal.stdout.length).toBe(0);
  });

  it('uploads a file field as a multipart part with its name and bytes', async () => {
    const file = join(dir, 'kvitto.pdf');
    writeFileSync(file, PDF);
    const result = await run(['documents', 'upload-thing', '--company', COMPANY, '--file', file, '--description', 'Kvitto', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.toString())).toEqual({ id: 'new', size_bytes: PDF.length });
    const sent = uploads.at(-1)!;
    expect(sent.contentType).toMatch(/^multipart\/form-data; boundary=/);
    const part = sent.form.get('file') as File;
    expect(part.name).toBe('kvitto.pdf');
    expect(Buffer.from(await part.arrayBuffer()).equals(PDF)).toBe(true);
    expect(sent.form.get('description')).toBe('Kvitto');

    const missing = await run(['documents', 'upload-thing', '--company', COMPANY, '--file', join(dir, 'nope.pdf')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('ENOENT');
  });
});
