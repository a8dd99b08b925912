import type { BinaryBody } from '../domain/kernel/binary-body.ts';
import type { FileContent } from '../registry/define-operation.ts';
import { wrappedHeaders } from '../http/security-headers.ts';

// RFC 5987 attr-char: what may stand unencoded in filename*.
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/**
 * `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266, RFC 5987): an ASCII fallback with
 * anything a header or an old client could misread replaced by `_`, and the exact UTF-8 name
 * percent-encoded. Control characters and path separators never survive into either.
 */
export function contentDisposition(filename: string): string {
  const clean = filename.replace(/[\u0000-\u001f\u007f-\u009f/\\]/g, '_').trim() || 'download';
  const fallback = clean.replace(/[^\x20-\x7e]|["%;]/g, '_');
  const encoded = [...clean]
    .map((char) =>
      ATTR_CHAR.test(char) ? char : [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    )
    .join('');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * A binary success body (spec Endpoints 9: no envelope), streamed as the producer writes it, with
 * the wrapped header set every operation route answers with.
 */
export function binaryResponse(requestId: string, body: BinaryBody, status: number, extra?: Readonly<Record<string, string>>): Response {
  const headers: Record<string, string> = { ...wrappedHeaders(requestId, false, extra), 'Content-Type': body.contentType };
  if (body.filename) headers['Content-Disposition'] = contentDisposition(body.filename);
  if (body.length !== undefined) headers['Content-Length'] = String(body.length);
  if (body.language !== undefined) headers['Content-Language'] = body.language;
  return new Response(body.stream, { status, headers });
}

/**
 * A stored file (a document's content). The wrapped security headers stay —
 * `X-Content-Type-Options: nosniff` and `default-src 'none'` keep a browser from rendering an
 * uploaded file as a page — and the file gets its exact type, length, an attachment disposition
 * with a header-safe name and, when it has one, an ETag: a matching If-None-Match answers 304
 * without reading the bytes.
 */
export async function fileResponse(
  requestId: string,
  file: FileContent,
  ifNoneMatch: string | undefined,
  extra?: Readonly<Record<string, string>>,
): Promise<Response> {
  // Documents never change under their id, but the caller's access can: revalidate every time.
  const headers: Record<string, string> = { ...wrappedHeaders(requestId, false, extra), 'Cache-Control': 'private, no-cache' };
  if (file.etag !== undefined) {
    headers.ETag = `"${file.etag}"`;
    if (ifNoneMatchHits(ifNoneMatch, headers.ETag)) return new Response(null, { status: 304, headers });
  }
  const body = await file.read();
  headers['Content-Type'] = file.contentType;
  headers['Content-Disposition'] = contentDisposition(file.filename);
  if (body instanceof Uint8Array) headers['Content-Length'] = String(body.byteLength);
  else if (file.size !== undefined) headers['Content-Length'] = String(file.size);
  // Our byte arrays come from Buffers over plain ArrayBuffers (never shared memory), which is what Response's type asks.
  return new Response(body as Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>, { status: 200, headers });
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` is ignored, `*` matches anything. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}
