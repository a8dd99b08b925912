/**
 * What the HTTP surfaces tell the metrics about each answered request. Declared here, below the
 * surfaces, so REST and MCP count alike without knowing prom-client (ops/metrics.ts implements
 * it); without a metrics port the no-op below is used and nothing is counted.
 */

export type Surface = 'rest' | 'mcp';

/** The requests of one (surface, operation) pair: resolved once, then told each answer. */
export interface RequestSeries {
  /** One answered request: its HTTP status and how long it took, in seconds. */
  observe(status: number, seconds: number): void;
}

export interface RequestMetrics {
  /** The series of a surface and operation label; call once per route (at mount), not per request. */
  series(surface: Surface, operation: string): RequestSeries;
  /** One MCP tools/call of a registry operation, by the status the same request gets over REST. */
  toolCall(operation: string, status: number): void;
}

/**
 * Labels of requests that ran no registry operation. Operation ids are camelCase, so these
 * lowercase words can never collide with one; each is a constant, so cardinality stays bounded.
 */
export const OPERATION_LABELS = {
  /** No route matched: 404 ROUTE_NOT_FOUND or 405 METHOD_NOT_ALLOWED. */
  unmatched: 'unmatched',
  /** Discovery and static routes (openapi.json, /docs, llms.txt, skills, security.txt). */
  discovery: 'discovery',
  /** `/mcp` requests other than a lone tools/call of an operation (initialize, tools/list, batches…). */
  mcp: 'mcp',
  /** The dispatcher's cron route. */
  cron: 'cron',
} as const;

const NO_SERIES: RequestSeries = { observe: () => {} };

export const NO_REQUEST_METRICS: RequestMetrics = {
  series: () => NO_SERIES,
  toolCall: () => {},
};
