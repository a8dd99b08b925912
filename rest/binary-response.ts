import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { BinaryBody } from '../domain/kernel/binary-body.ts';
import type { AppEnv } from '../registry/http/app-env.ts';

/** RFC 6266 / 8187: an ASCII fallback and the exact UTF-8 name. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * A binary success body (spec Endpoints 9: no envelope), streamed as the producer writes it. The
 * security headers and X-Request-Id were set on the context before the handler ran, so they are
 * sent here too.
 */
export function binaryResponse(c: Context<AppEnv>, body: BinaryBody, status: ContentfulStatusCode): Response {
  const headers: Record<string, string> = { 'Content-Type': body.contentType };
  if (body.filename) headers['Content-Disposition'] = contentDisposition(body.filename);
  if (body.length !== undefined) headers['Content-Length'] = String(body.length);
  return c.body(body.stream, status, headers);
}
