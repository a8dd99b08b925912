import { z } from 'zod';
import { booksInstant } from '../kernel/books-dates.ts';
import { EventType } from '../events/types.ts';
import { Event } from '../events/schemas.ts';
import { undescribed } from '../kernel/undescribed.ts';

export const MAX_WEBHOOKS_PER_COMPANY = 50; // bounded, so the list needs no pagination (spec Limits)

const HOUR_SECONDS = 3600;
/** Rotation: how long the previous secret keeps signing beside the new one, unless the request says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * HOUR_SECONDS;
/** Rotation: the longest overlap a request may ask for (7 days). */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * HOUR_SECONDS;

export const WebhookId = z.uuid().describe('Webhook id (uuid), from the webhooks list or the create response.');
export const DeliveryId = z.uuid().describe("Delivery id (uuid), from a webhook's deliveries list.");

const WebhookUrl = z.string().trim().max(2048).describe('Absolute https URL that receives signed POSTs; must resolve to public addresses only.');
const Name = z.string().trim().min(1).max(100).describe('Short label for the subscription.');
const Description = z.string().trim().max(500).describe('Free text: what the receiver does.');

export const Webhook = z
  .object({
    id: z.uuid(),
    company_id: z.uuid(),
    event_type: EventType,
    webhook_url: z.string(),
    name: z.string(),
    description: z.string(),
    active: z.boolean().describe('false when disabled (see disabled_reason).'),
    created_by_api_key_id: z.uuid().nullable().describe('API key that created the subscription.'),
    api_version_pinned: z.string().describe("API version the deliveries' payloads follow."),
    disabled_at: z.iso.datetime().nullable(),
    disabled_reason: z
      .string()
      .nullable()
      .describe(
        'manually_disabled, http_410 (receiver answered 410 Gone), url_unsafe:<class> or consecutive_failures ' +
          '(every delivery failed for 5 days, or the last 50 ended dead).',
      ),
    previous_secret_expires_at: z.iso
      .datetime()
      .nullable()
      .describe('After a secret rotation: until this instant deliveries are signed with the new and the previous secret. null otherwise.'),
    failing_since: z.iso.datetime().nullable().describe('When deliveries started failing with no success since; null while deliveries succeed.'),
    last_error: z
      .string()
      .nullable()
      .describe("The latest failed attempt's error since the last success (e.g. http_500, timeout); null while deliveries succeed."),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .describe('A webhook subscription (never includes the secret after creation).');
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = Webhook.extend({
  secret: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('Signing secret (64 hex chars). Shown only in this response: store it now.'),
});
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

export const RotatedWebhook = Webhook.extend({
  secret: CreatedWebhook.shape.secret.describe('The new signing secret (64 hex chars). Shown only in this response: store it now.'),
});
export type RotatedWebhook = z.infer<typeof RotatedWebhook>;

export const RotateWebhookSecretBody = z
  .strictObject({
    overlap_seconds: z
      .int()
      .min(0)
      .max(MAX_ROTATION_OVERLAP_SECONDS)
      .optional()
      .describe(
        `How long the previous secret keeps signing beside the new one, in seconds: 0-${MAX_ROTATION_OVERLAP_SECONDS} ` +
          `(7 days), default ${DEFAULT_ROTATION_OVERLAP_SECONDS} (24 h). 0 retires it at once.`,
      ),
  })
  .optional();
export type RotateWebhookSecretBody = z.infer<typeof RotateWebhookSecretBody>;

export const CreateWebhookBody = z
  .object({
    event_type: EventType,
    webhook_url: WebhookUrl,
    name: Name,
    description: Description.default(''),
  })
  .strict();
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .strictObject(
    {
      webhook_url: WebhookUrl.optional(),
      active: z.boolean().optional().describe('false disables deliveries (manually_disabled); true re-enables after re-checking the URL.'),
      name: Name.optional(),
      description: Description.optional(),
    },
    {
      // Say why, not just "unrecognized key": the type is fixed for the subscription's life.
      error: (issue) =>
        issue.code === 'unrecognized_keys' && issue.keys.includes('event_type')
          ? 'event_type cannot be changed; create a new webhook for another event type'
          : undefined,
    },
  )
  .refine((body) => Object.keys(body).length > 0, { message: 'Provide at least one field to update.' });
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const DELIVERY_STATUSES = ['pending', 'in_flight', 'delivered', 'failed', 'dead'] as const;
export const TERMINAL_STATUSES: readonly string[] = ['delivered', 'dead'];

/** Delivery-log search (listWebhookDeliveries): every filter is optional and they combine with AND. */
export const DeliveryFilters = z.object({
  status: z.enum(DELIVERY_STATUSES).optional().describe('Only deliveries in this status.'),
  created_gte: booksInstant({ offset: true }).optional().describe('Only deliveries created at or after this instant (ISO 8601, e.g. 2026-11-21T00:00:00Z).'),
  created_lt: booksInstant({ offset: true }).optional().describe('Only deliveries created before this instant (ISO 8601).'),
});
export type DeliveryFilters = z.infer<typeof DeliveryFilters>;

/** How one attempt ended (webhook_delivery_attempts.outcome): the delivery statuses an attempt can leave. */
export const ATTEMPT_OUTCOMES = ['delivered', 'failed', 'dead'] as const;

export const DeliveryAttempt = z
  .object({
    attempt_number: z.number().int(),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime(),
    response_status: z.number().int().nullable(),
    error_class: z.string().nullable().describe('timeout, a transport error code (e.g. ECONNREFUSED) or url_unsafe:<class>.'),
    response_body: z.string().nullable(),
  })
  .describe('One attempt to deliver, from the append-only attempt log.');
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const Delivery = z
  .object({
    id: z.uuid(),
    webhook_id: z.uuid().nullable().describe('null once the webhook was deleted.'),
    company_id: z.uuid(),
    event_id: z.uuid().nullable().describe("The event sent (X-Service-Event-Id); a test delivery's is not stored."),
    event_type: EventType,
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    next_attempt_at: z.iso.datetime(),
    response_status: z.number().int().nullable(),
    response_body: z.string().nullable().describe("Receiver's response body, first 4096 bytes."),
    response_headers: z.record(z.string(), z.string()).nullable(),
    dead_reason: z.string().nullable().describe('Why a dead delivery stopped, e.g. attempts_exhausted:http_500, http_410, url_unsafe:<class>.'),
    test: z.boolean().describe('true for deliveries made by the test endpoint.'),
    retry_of: z.uuid().nullable().describe('The terminal delivery this one retries.'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .describe('One delivery of one event to one webhook.');
export type Delivery = z.infer<typeof Delivery>;

// Expanded resources are documented where they are defined (Webhook, Event), so here they come
// without their prose, and their type is a plain string: it is the delivery's own event_type (a
// database rule), not the 24-name enum a third time. Both keep a tool schema within the MCP budget.
const DeliveryEventType = z.string();

/** A delivery as listed: the fields its expansions (expand=…) add, present only when asked for. */
export const ListedDelivery = Delivery.extend({
  webhook: undescribed(Webhook.extend({ event_type: DeliveryEventType }))
    .optional()
    .describe('expand=webhook: the webhook.'),
  // Stored events have uuid ids (the `evt_` form exists for worked examples only).
  event: undescribed(Event.extend({ id: z.uuid(), type: DeliveryEventType }))
    .optional()
    .describe('expand=event: the stored event.'),
  attempt_history: z.array(DeliveryAttempt).optional().describe('expand=attempts: every attempt, oldest first.'),
}).describe('One delivery of one event to one webhook.');
export type ListedDelivery = z.infer<typeof ListedDelivery>;
