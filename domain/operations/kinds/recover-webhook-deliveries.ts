import { defineKind } from '../define-kind.ts';

/** Re-enqueues a webhook's dead or failed deliveries of a time window (jobs/recover-deliveries.ts). */
export const recoverWebhookDeliveriesKind = defineKind({
  kind: 'recover_webhook_deliveries',
  scope: 'webhooks:manage',
  handler: async (job) => (await import('../jobs/recover-deliveries.ts')).recoverDeliveriesJob(job),
});
