import type { Context } from 'hono';
import { DomainError } from '../domain/kernel/errors.ts';
import type { AppEnv } from '../registry/http/app-env.ts';

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON body with the failures a caller can cause mapped to catalogue errors: wrong
 * content type (415), too large (413), not JSON (400). An empty body reads as undefined.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > MAX_JSON_BODY_BYTES) throw new DomainError('PAYLOAD_TOO_LARGE');
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_JSON_BODY_BYTES) throw new DomainError('PAYLOAD_TOO_LARGE');
  if (text.trim() === '') return undefined;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) throw new DomainError('UNSUPPORTED_MEDIA_TYPE');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError('VALIDATION_ERROR', {
      message: 'The request body is not valid JSON.',
      details: [{ path: 'body', message: 'Malformed JSON.' }],
    });
  }
}
