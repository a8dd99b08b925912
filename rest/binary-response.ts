import type { BinaryBody } from '../domain/kernel/binary-body.ts';
import { wrappedHeaders } from '../registry/http/security-headers.ts';

/** RFC 6266 / 8187: an ASCII fallback and the exact UTF-8 name. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * A binary success body (spec Endpoints 9: no envelope), streamed as the producer writes it, with
 * the wrapped header set every operation route answers with.
 */
export function binaryResponse(requestId: string, body: BinaryBody, status: number, extra?: Readonly<Record<string, string>>): Response {
  const headers: Record<string, string> = { ...wrappedHeaders(requestId, false, extra), 'Content-Type': body.contentType };
  if (body.filename) headers['Content-Disposition'] = contentDisposition(body.filename);
  if (body.length !== undefined) headers['Content-Length'] = String(body.length);
  return new Response(body.stream, { status, headers });
}
