import type { OperationContext } from '../kernel/context.ts';
import { DomainError } from '../kernel/errors.ts';
import { checkWebhookUrl } from './url-safety.ts';

/** Create, update and retry refuse an unsafe URL as a validation failure (spec Endpoints 2 and 6). */
export async function assertSafeWebhookUrl(ctx: OperationContext, url: string, path = 'body.webhook_url'): Promise<void> {
  const result = await checkWebhookUrl(url, ctx.services.webhookUrlPolicy);
  if (!result.ok) {
    throw new DomainError('VALIDATION_ERROR', {
      message: result.message,
      details: [{ path, message: `url_unsafe:${result.unsafeClass}` }],
    });
  }
}
