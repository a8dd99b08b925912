import { PrismaSql } from '../db/client.ts';
import type { Delivery, Webhook } from './schemas.ts';
import type { EventType } from '../events/types.ts';

export interface WebhookRow {
  id: string;
  companyId: string;
  eventType: string;
  webhookUrl: string;
  name: string;
  description: string;
  createdByApiKeyId: string | null;
  apiVersionPinned: string;
  disabledAt: Date | null;
  disabledReason: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A raw statement's RETURNING list that reads as a WebhookRow (what Prisma's model API returns). */
export const WEBHOOK_COLUMNS = PrismaSql.raw(
  `id::text AS id, company_id::text AS "companyId", event_type AS "eventType", webhook_url AS "webhookUrl", name, description,
   created_by_api_key_id::text AS "createdByApiKeyId", api_version_pinned AS "apiVersionPinned", disabled_at AS "disabledAt",
   disabled_reason AS "disabledReason", previous_secret_expires_at AS "previousSecretExpiresAt", failing_since AS "failingSince",
   last_error AS "lastError", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

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

interface DeliveryRow {
  id: string;
  webhookId: string | null;
  companyId: string;
  eventId: string | null;
  eventType: string;
  /** The delivered JSON; its `id` is the event id a test delivery has no stored event for. */
  payload: unknown;
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  responseStatus: number | null;
  responseBody: string | null;
  responseHeaders: unknown;
  deadReason: string | null;
  isTest: boolean;
  retryOf: string | null;
  createdAt: Date;
  updatedAt: Date;
}

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
