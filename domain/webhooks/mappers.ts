import { type Models, PrismaSql } from '../db/client.ts';
import { modelColumns } from '../db/model-columns.ts';
import type { Delivery, Webhook } from './schemas.ts';
import type { EventType } from '../events/types.ts';

/** A webhook row as Prisma's model API returns it: typed once, by the model prisma/schema.prisma declares. */
export type WebhookRow = Models.WebhookModel;

/** A raw statement's RETURNING list that reads as a WebhookRow, derived from the same model. */
export const WEBHOOK_COLUMNS = PrismaSql.raw(modelColumns(PrismaSql.WebhookScalarFieldEnum));

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  company_id: row.companyId,
  event_type: row.eventType as EventType,
  webhook_url: row.webhookUrl,
  name: row.name,
  description: row.description,
  active: row.disabledAt === null,
  created_by_api_key_id: row.createdByApiKeyId,
  api_version_pinned: row.apiVersionPinned,
  disabled_at: row.disabledAt?.toISOString() ?? null,
  disabled_reason: row.disabledReason,
  previous_secret_expires_at: row.previousSecretExpiresAt?.toISOString() ?? null,
  failing_since: row.failingSince?.toISOString() ?? null,
  last_error: row.lastError,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** A delivery row as Prisma's model API returns it. */
type DeliveryRow = Models.WebhookDeliveryModel;

const payloadEventId = (payload: unknown): string | null => {
  const id = (payload as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
};

export const toDelivery = (row: DeliveryRow): Delivery => ({
  id: row.id,
  webhook_id: row.webhookId,
  company_id: row.companyId,
  // The id the receiver saw in X-Service-Event-Id (dispatcher/tick.ts sends the same fallback).
  event_id: row.eventId ?? payloadEventId(row.payload),
  event_type: row.eventType as EventType,
  status: row.status as Delivery['status'],
  attempts: row.attempts,
  next_attempt_at: row.nextAttemptAt.toISOString(),
  response_status: row.responseStatus,
  response_body: row.responseBody,
  response_headers: (row.responseHeaders as Record<string, string> | null) ?? null,
  dead_reason: row.deadReason,
  test: row.isTest,
  retry_of: row.retryOf,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});
