import type { OperationContext } from '../context.ts';
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

/**
 * URLs that passed the safety check before the database transaction opened. DNS can take as
 * long as the resolve timeout; done inside a transaction, it would hold a database connection
 * (and on the embedded database, the only one) for that long. The registry's `prepare` step
 * checks the URLs a write will need first, and the verb, inside the transaction, re-checks only
 * a URL that changed meanwhile.
 */
export type CheckedUrls = ReadonlySet<string>;

export const NO_CHECKED_URLS: CheckedUrls = new Set();

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

/** Checks `url` (outside any transaction) and returns it as checked. */
export async function checkUrlsFirst(ctx: OperationContext, url: string | null, path?: string): Promise<CheckedUrls> {
  if (url === null) return NO_CHECKED_URLS;
  await assertSafeWebhookUrl(ctx, url, path);
  return new Set([url]);
}

/** Inside the transaction: a URL checked beforehand passes; any other is checked now. */
export async function assertCheckedWebhookUrl(ctx: OperationContext, checked: CheckedUrls, url: string, path?: string): Promise<void> {
  if (!checked.has(url)) await assertSafeWebhookUrl(ctx, url, path);
}
