import type { Hono } from 'hono';
import type { AppEnv } from '../../http/app-env.ts';

/**
 * Small real files of every accepted type (enough bytes for their magic numbers), files that must
 * be refused, and an upload helper that sends multipart/form-data through the real app.
 */

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** A valid 1×1 PNG. */
export const PNG = hex(`89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489
  0000000d4944415478da63f8cfc0f01f0005000201ff8b7a2e0000000049454e44ae426082`);
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n');
export const JPEG = hex(`ffd8ffe000104a46494600010100000100010000ffdb004300${'08'.repeat(64)}ffd9`);
export const TIFF = hex('49492a000800000001000001030001000000010000000000');
export const HEIC = Buffer.concat([hex('00000018667479706865696300000000'), Buffer.from('mif1heic'), Buffer.alloc(32)]);
export const XML_INVOICE = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">' +
    '<cbc:ID xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">F-2026-118</cbc:ID></Invoice>\n',
);
/** An e-invoice without an XML declaration, after a comment: no magic number at all. */
export const XML_WITHOUT_DECLARATION = Buffer.from('\uFEFF<!-- Svefaktura -->\n<Invoice xmlns="urn:sfti:documents:BasicInvoice:1:0"><ID>7</ID></Invoice>');

export const REFUSED: Record<string, Buffer> = {
  gif: Buffer.from(
    'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;',
    'latin1',
  ),
  zip: hex(`504b0304140000000000${'00'.repeat(40)}`),
  html: Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>'),
  svg: Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  text: Buffer.from('Kvitto: 125,00 kr\n'),
};

/** A Blob of the bytes (copied: a Blob takes plain ArrayBuffer views, and Buffers may share a pool). */
export const blobOf = (bytes: Buffer, type = 'application/octet-stream'): Blob => new Blob([new Uint8Array(bytes)], { type });

export interface UploadOptions {
  filename?: string;
  /** The client's word for the type; the server reads the content instead. */
  type?: string;
  description?: string;
  headers?: Record<string, string>;
  query?: string;
}

/** POST …/documents as multipart/form-data (one `file` part, optional `description`). */
export async function uploadFile(app: Hono<AppEnv>, key: string, companyId: string, bytes: Buffer, options: UploadOptions = {}) {
  const form = new FormData();
  form.append('file', blobOf(bytes, options.type), options.filename ?? 'receipt.bin');
  if (options.description !== undefined) form.append('description', options.description);
  return send(app, key, `/api/v1/companies/${companyId}/documents${options.query ?? ''}`, form, options.headers);
}

/** Any multipart/form-data body through the real app. */
export async function send(app: Hono<AppEnv>, key: string, path: string, form: FormData, headers: Record<string, string> = {}) {
  const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
  const response = await app.request(path, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}`, ...headers } }, env as never);
  const text = await response.text();
  // `any` keeps assertions on response bodies short, as in helpers/http.ts.
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any, text };
}

/** GET …/content: the raw bytes and headers. */
export async function download(app: Hono<AppEnv>, key: string, companyId: string, documentId: string, headers: Record<string, string> = {}) {
  const env = { incoming: { socket: { remoteAddress: '203.0.113.77' } } };
  const response = await app.request(
    `/api/v1/companies/${companyId}/documents/${documentId}/content`,
    { headers: { authorization: `Bearer ${key}`, ...headers } },
    env as never,
  );
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/**
 * A multipart body of one PDF-typed file of `size` bytes, produced chunk by chunk as it is read,
 * with no Content-Length: the server cannot know the size before reading. `pulled()` says how
 * many bytes the reader took.
 */
export function streamedUpload(size: number, chunkSize = 64 * 1024) {
  const boundary = `----upload${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const filler = Buffer.alloc(chunkSize, 0x20);
  let sent = 0;
  let pulled = 0;
  let stage: 'head' | 'file' | 'tail' | 'done' = 'head';
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      let chunk: Buffer;
      if (stage === 'head') {
        chunk = Buffer.concat([head, PDF]);
        sent = PDF.length;
        stage = 'file';
      } else if (stage === 'file') {
        chunk = filler.subarray(0, Math.min(chunkSize, size - sent));
        sent += chunk.length;
        if (sent >= size) stage = 'tail';
      } else if (stage === 'tail') {
        chunk = tail;
        stage = 'done';
      } else {
        controller.close();
        return;
      }
      pulled += chunk.length;
      controller.enqueue(new Uint8Array(chunk));
    },
  });
  return { stream, contentType: `multipart/form-data; boundary=${boundary}`, pulled: () => pulled, head, tail };
}
