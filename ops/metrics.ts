import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { Services } from '../domain/context.ts';
import { readQueueGauges, DUE_COUNT_CAP, type QueueGauges } from '../domain/observability/queue-gauges.ts';
import type { RequestMetrics } from '../http/request-metrics.ts';
import type { OutcomeObserver } from '../dispatcher/tick.ts';
import { LATENCY_BUCKETS, RequestStore } from './request-series.ts';

/** Every metric this service defines, named once (tests and dashboards read them from here). */
export const METRIC_NAMES = {
  httpRequests: 'accounting_http_requests_total',
  httpRequestDuration: 'accounting_http_request_duration_seconds',
  mcpToolCalls: 'accounting_mcp_tool_calls_total',
  webhookDeliveries: 'accounting_webhook_deliveries_total',
  webhookQueueDepth: 'accounting_webhook_queue_depth',
  webhookClaimLag: 'accounting_webhook_claim_lag_seconds',
  operations: 'accounting_operations',
  operationsFinished: 'accounting_operations_finished_total',
  loopRunning: 'accounting_loop_running',
  webhookWaitingForKey: 'accounting_webhook_deliveries_waiting_for_key',
} as const;

/**
 * prom-client's default gauges named `_total`, which Prometheus reserves for counters (`promtool
 * check metrics`: "non-counter metrics should not have _total suffix";
 * https://prometheus.io/docs/practices/naming/). Each is the sum over the `type` label of the
 * gauge it shadows (`nodejs_active_handles` …), so `sum(nodejs_active_handles)` says the same.
 */
export const UNLINTABLE_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/** The outcomes a dispatcher reports (dispatcher/tick.ts OutcomeObserver), all exposed from zero. */
const DELIVERY_OUTCOMES = ['delivered', 'failed', 'dead', 'recovered'] as const;

export interface Metrics {
  readonly registry: Registry;
  /** For the HTTP surfaces (createApp, /mcp): requests and tool calls. */
  readonly requests: RequestMetrics;
  /** For the delivery loop and the cron route. */
  readonly onDeliveries: OutcomeObserver;
  /** For the operation runner. */
  readonly onOperationFinished: (kind: string, status: string) => void;
  /** The exposition text a scrape gets. */
  text(): Promise<string>;
  readonly contentType: string;
}

/**
 * The process's metrics on a registry of its own: request counts and latencies by operation,
 * surface and status; deliveries and finished operations by outcome; the backlog, read from the
 * database once per scrape; which loops run here; and prom-client's process metrics.
 */
export function createMetrics(services: Services): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  for (const name of UNLINTABLE_DEFAULT_METRICS) registry.removeSingleMetric(name);

  const store = new RequestStore();
  new Counter({
    name: METRIC_NAMES.httpRequests,
    help: 'HTTP requests answered, by surface (rest, mcp), operation (registry operation id, or unmatched, discovery, mcp, cron) and HTTP status.',
    labelNames: ['surface', 'operation', 'status'],
    registers,
    collect() {
      this.reset();
      for (const cell of store.cells) this.inc(cell.labels, cell.count);
    },
  });
  // Cast: the registry reads a metric through get() and reset() alone (prom-client's Registry), and
  // this histogram is built from the request store at scrape time instead of prom-client's observe().
  registry.registerMetric(latencyHistogram(store) as unknown as Metric);
  new Counter({
    name: METRIC_NAMES.mcpToolCalls,
    help: 'MCP tools/call of registry operations, by operation and the status the same request gets over REST.',
    labelNames: ['operation', 'status'],
    registers,
    collect() {
      this.reset();
      for (const byStatus of store.toolCalls.values()) for (const entry of byStatus.values()) this.inc(entry.labels, entry.count);
    },
  });

  const deliveries = new Counter({
    name: METRIC_NAMES.webhookDeliveries,
    help: 'Webhook delivery attempts finished by this process, by outcome: delivered, failed (retried later), dead, recovered (stuck in flight, returned to the queue).',
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ outcome }, 0);

  const finished = new Counter({
    name: METRIC_NAMES.operationsFinished,
    help: "Operations this process's runner ended, by kind and status (succeeded, failed, cancelled).",
    labelNames: ['kind', 'status'],
    registers,
  });

  const snapshot = oncePerScrape(async (): Promise<QueueGauges | null> => {
    try {
      return await readQueueGauges(services);
    } catch (error) {
      // The scrape still answers (process metrics, counters); the backlog gauges are left out.
      services.logger.warn({ err: error }, 'metrics: the backlog gauges could not be read');
      return null;
    }
  });
  new Gauge({
    name: METRIC_NAMES.webhookQueueDepth,
    help: `Webhook deliveries by state: due (due now, not yet claimed; counted up to ${DUE_COUNT_CAP}) and in_flight (claimed, being sent). Every process on the database reports the same.`,
    labelNames: ['state'],
    registers,
    async collect() {
      const gauges = await snapshot();
      this.reset();
      if (!gauges) return;
      this.set({ state: 'due' }, gauges.due);
      this.set({ state: 'in_flight' }, gauges.inFlight);
    },
  });
  new Gauge({
    name: METRIC_NAMES.webhookClaimLag,
    help: 'Seconds the oldest due, unclaimed webhook delivery has waited; 0 when none is due.',
    registers,
    async collect() {
      const gauges = await snapshot();
      if (gauges) this.set(gauges.claimLagSeconds);
      else this.remove(); // absent rather than a reassuring 0
    },
  });
  new Gauge({
    name: METRIC_NAMES.operations,
    help: 'Long-running operations waiting (queued) or being worked on (running), across every process on the database.',
    labelNames: ['status'],
    registers,
    async collect() {
      const gauges = await snapshot();
      this.reset();
      if (!gauges) return;
      this.set({ status: 'queued' }, gauges.operationsQueued);
      this.set({ status: 'running' }, gauges.operationsRunning);
    },
  });
  new Gauge({
    name: METRIC_NAMES.webhookWaitingForKey,
    help: "Webhook deliveries waiting because their webhook's secret cannot be decrypted with the ENCRYPTION_KEY in use; never marked dead, sent once the key is right.",
    registers,
    async collect() {
      const gauges = await snapshot();
      if (gauges) this.set(gauges.waitingForKey);
      else this.remove(); // absent rather than a reassuring 0
    },
  });
  new Gauge({
    name: METRIC_NAMES.loopRunning,
    help: 'Whether this process runs the loop: delivery (webhook dispatcher) or operations (the operation runner); 1 or 0.',
    labelNames: ['loop'],
    registers,
    collect() {
      this.set({ loop: 'delivery' }, services.loops.delivery > 0 ? 1 : 0);
      this.set({ loop: 'operations' }, services.loops.operations > 0 ? 1 : 0);
    },
  });

  return {
    registry,
    requests: store,
    onDeliveries: (outcomes) => {
      for (const outcome of DELIVERY_OUTCOMES) if (outcomes[outcome] > 0) deliveries.inc({ outcome }, outcomes[outcome]);
    },
    onOperationFinished: (kind, status) => finished.inc({ kind, status }),
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/**
 * Several gauges come from one statement: the first collect() of a scrape starts it, the others
 * of the same scrape (the registry collects them all at once) share its answer.
 */
function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= read().finally(() => {
      pending = null;
    }));
}

interface HistogramValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/** The request latency histogram in the shape prom-client's registry reads (get(), reset()). */
function latencyHistogram(store: RequestStore) {
  const name = METRIC_NAMES.httpRequestDuration;
  const help = 'Seconds from a request arriving to its answer, by surface, operation and HTTP status.';
  const bucket = `${name}_bucket`;
  return {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: HistogramValue[] = [];
      for (const cell of store.cells) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, slot) => {
          cumulative += cell.buckets[slot]!;
          values.push({ metricName: bucket, labels: { ...cell.labels, le }, value: cumulative });
        });
        values.push({ metricName: bucket, labels: { ...cell.labels, le: '+Inf' }, value: cell.count });
        values.push({ metricName: `${name}_sum`, labels: cell.labels, value: cell.sum });
        values.push({ metricName: `${name}_count`, labels: cell.labels, value: cell.count });
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
    // Counts last the life of the process, like every Prometheus counter.
    reset: () => {},
  };
}
