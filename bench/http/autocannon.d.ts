// autocannon 8 ships no types; the part of its API the benchmarks use.
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Requests per second across all connections. */
    overallRate?: number;
    /** Sent in turn on each connection; setupRequest may change a request before it is sent. */
    requests?: RequestSpec[];
  }
  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestSpec) => RequestSpec;
  }
  interface Histogram {
    average: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    /** Answers by status code, e.g. { '200': { count: 10 } }. */
    statusCodeStats?: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
