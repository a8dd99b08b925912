import type { OperationContext } from '../kernel/context.ts';
import { DomainError } from '../kernel/errors.ts';
import { checkWebhookUrl, type UrlSafetyResult } from './url-safety.ts';

/** The setting that lets a development server deliver to a private (e.g. loopback) receiver. */
export const ALLOW_PRIVATE_SETTING = 'WEBHOOK_ALLOWED_PRIVATE_CIDRS';

/**
 * On a development server (the embedded database), a refusal a local receiver would hit says how
 * to allow it; production servers (PostgreSQL) never suggest opening private ranges.
 */
function developmentHint(ctx: OperationContext, refusal: Extract<UrlSafetyResult, { ok: false }>): string | undefined {
  if (!ctx.services.config.embedded) return undefined;
  if (refusal.allowable && refusal.address) {
    const single = refusal.address.includes(':') ? `${refusal.address}/128` : `${refusal.address}/32`;
    return `This is a development server (embedded database): to deliver to a local receiver, start it with ${ALLOW_PRIVATE_SETTING}=${single} (comma-separated CIDRs; never in production).`;
  }
  if (refusal.unsafeClass === 'scheme') {
    return `This is a development server (embedded database): a local receiver must also speak https (trust its certificate with WEBHOOK_CA_FILE) and be allowed with ${ALLOW_PRIVATE_SETTING}, e.g. 127.0.0.1/32.`;
  }
  return undefined;
}

/** Create, update and retry refuse an unsafe URL as a validation failure (spec Endpoints 2 and 6). */
export async function assertSafeWebhookUrl(ctx: OperationContext, url: string, path = 'body.webhook_url'): Promise<void> {
  const result = await checkWebhookUrl(url, ctx.services.webhookUrlPolicy);
  if (!result.ok) {
    const hint = developmentHint(ctx, result);
    throw new DomainError('VALIDATION_ERROR', {
      message: result.message,
      details: [{ path, message: `url_unsafe:${result.unsafeClass}` }],
      ...(hint && { hint }),
    });
  }
}
