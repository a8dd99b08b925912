import type pino from 'pino';
import type { ClaimedDelivery } from '../domain/webhooks/claim.ts';
import type { AttemptRecord } from '../domain/webhooks/record-outcomes.ts';

/**
 * One log line per delivery outcome, once it is recorded: which delivery, webhook and event, the
 * attempt's number and result, and when the next try is due. Never the payload, the URL's query
 * or any secret. Dead deliveries are warnings: nothing will retry them.
 */
export function logOutcome(logger: pino.Logger, row: ClaimedDelivery, record: AttemptRecord): void {
  const startedAt = Date.parse(record.started_at);
  const line = {
    event: 'delivery',
    delivery_id: row.delivery_id,
    webhook_id: row.webhook_id,
    company_id: row.delivery_company_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempts + 1,
    outcome: record.status,
    response_status: record.response_status,
    error_class: record.error_class,
    dead_reason: record.dead_reason,
    next_attempt_at: record.next_attempt_at,
    duration_ms: Date.parse(record.finished_at) - startedAt,
  };
  const message = `delivery ${record.status} (${row.event_type}, attempt ${line.attempt}${record.response_status ? `, HTTP ${record.response_status}` : record.error_class ? `, ${record.error_class}` : ''})`;
  if (record.status === 'dead') logger.warn(line, message);
  else logger.info(line, message);
}
