// autocannon 8 ships no types; the part of its API the benchmarks use.
declare module 'autocannon' {
  /** The request autocannon is about to build; setupRequest returns it changed. */
  interface RequestParams {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string | Buffer;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Requests per second across all connections. */
    overallRate?: number;
    /** Each connection cycles through these; a setupRequest runs before every request it builds. */
    requests?: Request[];
  }
  interface Histogram {
    average: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
    /** Answers by status code, e.g. { '200': { count: 10 } }. */
    statusCodeStats?: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
