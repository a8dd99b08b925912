import type { z } from 'zod';
import type { CreatedWebhook, Delivery, RotatedWebhook, Webhook } from '../../../domain/webhooks/schemas.ts';

/** Worked examples shared by the webhook operations (validated against their schemas at load). */
export const COMPANY_ID = '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10';
export const WEBHOOK_ID = '6a0c5d2e-4b1f-4f7a-9c3d-2e8b7a6f5d41';
export const DELIVERY_ID = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';

export const webhookExample: z.input<typeof Webhook> = {
  id: WEBHOOK_ID,
  company_id: COMPANY_ID,
  event_type: 'journal_entry.committed',
  webhook_url: 'https://hooks.example.com/accounting',
  name: 'Ledger sync',
  description: 'Mirrors committed journal entries into our BI warehouse.',
  active: true,
  created_by_api_key_id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
  api_version_pinned: '2026-11-01',
  disabled_at: null,
  disabled_reason: null,
  previous_secret_expires_at: null,
  failing_since: null,
  last_error: null,
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
};

export const createdWebhookExample: z.input<typeof CreatedWebhook> = {
  ...webhookExample,
  secret: '8f3a9c1e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c2e4b6d8f1a3c5e7b9d0f2a',
};

export const rotatedWebhookExample: z.input<typeof RotatedWebhook> = {
  ...webhookExample,
  previous_secret_expires_at: '2026-11-22T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
  secret: '3c5e7a9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c',
};

export const deliveryExample: z.input<typeof Delivery> = {
  id: DELIVERY_ID,
  webhook_id: WEBHOOK_ID,
  company_id: COMPANY_ID,
  event_id: 'e7f8a9b0-c1d2-4e3f-9a4b-5c6d7e8f9a0b',
  event_type: 'journal_entry.committed',
  status: 'delivered',
  attempts: 1,
  next_attempt_at: '2026-11-21T10:00:01.000Z',
  response_status: 200,
  response_body: '{"received":true}',
  response_headers: { 'content-type': 'application/json' },
  dead_reason: null,
  test: false,
  retry_of: null,
  created_at: '2026-11-21T10:00:01.000Z',
  updated_at: '2026-11-21T10:00:01.412Z',
};

export const pendingDeliveryExample: z.input<typeof Delivery> = {
  ...deliveryExample,
  id: 'd2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f60',
  status: 'pending',
  attempts: 0,
  response_status: null,
  response_body: null,
  response_headers: null,
  updated_at: '2026-11-21T10:00:01.000Z',
};
