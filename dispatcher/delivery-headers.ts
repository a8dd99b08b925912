import { SIGNATURE_HEADER, signPayload } from './sign.ts';

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
  /** The raw JSON that is sent, byte for byte: the signature covers exactly this. */
  body: string;
  eventType: string;
  deliveryId: string;
  eventId: string | null;
  /** When the attempt starts, in unix seconds (the signed `t`). */
  timestampSeconds: number;
  userAgent?: string;
}

export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent ?? DEFAULT_USER_AGENT,
    [SIGNATURE_HEADER]: signPayload(input.secret, input.body, input.timestampSeconds),
    [EVENT_TYPE_HEADER]: input.eventType,
    [DELIVERY_ID_HEADER]: input.deliveryId,
    ...(input.eventId !== null && { [EVENT_ID_HEADER]: input.eventId }),
  };
}
