import { SIGNATURE_HEADER, STANDARD_ID_HEADER, STANDARD_SIGNATURE_HEADER, STANDARD_TIMESTAMP_HEADER, signPayload, signStandardWebhook } from './sign.ts';

/**
 * The headers of one delivery POST, signed. The dispatcher sends these, and `accounting listen`
 * forwards events to a local receiver with exactly the same, so a receiver tested locally
 * verifies production deliveries unchanged.
 */

export const EVENT_ID_HEADER = 'X-Service-Event-Id';
export const EVENT_TYPE_HEADER = 'X-Service-Event-Type';
export const DELIVERY_ID_HEADER = 'X-Service-Delivery-Id';
export const DEFAULT_USER_AGENT = 'AccountingWebhooks/1.0';

export interface DeliveryHeaderInput {
  secret: string;
  /** During a rotation's overlap: the previous secret, which signs beside the current one. */
  previousSecret?: string | null;
  /** The raw JSON that is sent, byte for byte: the signature covers exactly this. */
  body: string;
  eventType: string;
  deliveryId: string;
  eventId: string | null;
  /** When the attempt starts, in unix seconds (the signed `t`). */
  timestampSeconds: number;
  userAgent?: string;
}

/**
 * Ours (X-Service-Signature, one `v1` per secret) and the Standard Webhooks headers beside them,
 * both keyed with the secret string's bytes.
 */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const secrets = input.previousSecret ? [input.secret, input.previousSecret] : [input.secret];
  // Standard Webhooks' id must be stable across retries: the event's id (the delivery's own id
  // only for a payload without one, which the dispatcher never sends).
  const messageId = input.eventId ?? input.deliveryId;
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent ?? DEFAULT_USER_AGENT,
    [SIGNATURE_HEADER]: signPayload(secrets, input.body, input.timestampSeconds),
    [EVENT_TYPE_HEADER]: input.eventType,
    [DELIVERY_ID_HEADER]: input.deliveryId,
    ...(input.eventId !== null && { [EVENT_ID_HEADER]: input.eventId }),
    [STANDARD_ID_HEADER]: messageId,
    [STANDARD_TIMESTAMP_HEADER]: String(input.timestampSeconds),
    [STANDARD_SIGNATURE_HEADER]: signStandardWebhook(secrets, messageId, input.body, input.timestampSeconds),
  };
}
