import type { Context } from 'hono';
import { DomainError } from '../domain/kernel/errors.ts';
import type { AppEnv } from '../http/app-env.ts';
import { MAX_BODY_BYTES } from '../registry/body-limit.ts';

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

/**
 * Reads a JSON body with the failures a caller can cause mapped to catalogue errors: wrong
 * content type (415), too large (413), not JSON (400). An empty body reads as undefined.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const text = await readLimitedText(c.req.raw, MAX_BODY_BYTES);
  if (text.trim() === '') return undefined;
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw new DomainError('UNSUPPORTED_MEDIA_TYPE');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError('VALIDATION_ERROR', {
      message: 'The request body is not valid JSON.',
      details: [{ path: 'body', message: 'Malformed JSON.' }],
    });
  }
}

/**
 * The body as text, counted as the bytes arrive: a declared Content-Length over the limit is
 * refused before reading, and a chunked body (no Content-Length) is cut off at the first chunk
 * that crosses it, so no body is ever held whole beyond the limit.
 */
async function readLimitedText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw new DomainError('PAYLOAD_TOO_LARGE');
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      // Stop reading: the rest is never pulled from the socket into memory.
      await reader.cancel().catch(() => undefined);
      throw new DomainError('PAYLOAD_TOO_LARGE');
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
