import { z } from 'zod';
import { FLAG_VALUES, parseFlag } from './flags.ts';

/**
 * Every setting the service reads, parsed once with zod. Nothing else reads `process.env`
 * (the CLI entry points pass it in), so tests can build a config without touching the environment.
 */
const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** A boolean setting: the one flag grammar (true/false); empty or unset takes the default. */
const booleanFlag = (defaultValue: boolean) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      const flag = parseFlag(v === '' ? undefined : v);
      if (flag.ok) return flag.value ?? defaultValue;
      ctx.addIssue({ code: 'custom', message: `use ${FLAG_VALUES.join(' or ')}` });
      return z.NEVER;
    });

/**
 * An optional port: unset or empty means off; otherwise digits only, 0-65535 (0 picks a free one).
 * Stricter than PORT's coercion, which would read '' as 0 and '1e3' as 1000.
 */
const PORT_HINT = 'use a port number 0-65535 (0 picks a free one), or leave it unset';
const optionalPort = optionalString.pipe(
  z
    .string()
    .regex(/^\d{1,5}$/, PORT_HINT)
    .transform(Number)
    .refine((port) => port <= 65535, PORT_HINT)
    .optional(),
);

/**
 * Browser origins allowed to call /api/v1 across origins (CORS), comma-separated; each an exact
 * origin (`https://app.example.com`, `http://localhost:5173`): scheme, host and port, no path.
 * `*` is refused: a bearer-key API is opened to named front ends, never to every page on the web.
 */
const CORS_ORIGINS_HINT = 'list exact origins such as https://app.example.com, comma-separated (no path, no *)';
const corsOrigins = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const origins: string[] = [];
    for (const item of (value ?? '').split(',').map((part) => part.trim())) {
      if (item === '') continue;
      const origin = originOf(item);
      if (origin === undefined) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item)} is not an origin: ${CORS_ORIGINS_HINT}` });
        return z.NEVER;
      }
      if (!origins.includes(origin)) origins.push(origin);
    }
    return origins as readonly string[];
  });

/** The origin an entry names when it is exactly one (`http(s)://host[:port]`, maybe with a trailing slash). */
function originOf(text: string): string | undefined {
  if (!/^https?:\/\/[^/?#*]+\/?$/i.test(text)) return undefined;
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: optionalString,
  DATABASE_ANON_URL: optionalString,
  /**
   * A session connection to the same database, never through a transaction-mode pooler: LISTEN
   * and migrations (a session advisory lock) need one. Defaults to DATABASE_URL.
   */
  DATABASE_DIRECT_URL: optionalString,
  /**
   * The owner of the schema, used for migrations alone (a session, never a pooler's). Set it when
   * DATABASE_URL is the runtime role (api_runtime), which can read and write rows but not change
   * the schema. Defaults to DATABASE_DIRECT_URL (one identity does both, as before).
   */
  DATABASE_MIGRATION_URL: optionalString,
  /**
   * PostgreSQL: the server cancels a statement of the service running longer than this (the
   * sessions' statement_timeout), and the client gives up on one that has no answer
   * DATABASE_DEADLINE_MARGIN_MS later, discarding its connection (a frozen server). Either way a
   * request answers 503 SERVICE_UNAVAILABLE with Retry-After. Migrations and LISTEN have no bound.
   * 15 s by default: with 5 s, one of eight concurrent 20 MiB uploads (npm run bench uploads) had
   * its insert cancelled on a busy 2-core machine; lower it where uploads are small.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: human-readable when standard output is a terminal, JSON lines otherwise. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  ENCRYPTION_KEY: optionalString,
  CRON_SECRET: optionalString,
  WEBHOOK_ALLOWED_PRIVATE_CIDRS: optionalString,
  CAPABILITY_REGISTRY_URL: optionalString,
  /** How long a capability lookup waits for the upstream registry before using the local copy. */
  CAPABILITY_REGISTRY_TIMEOUT_MS: z.coerce.number().int().min(1).max(30_000).default(2_000),
  /** Run the delivery loop inside `npm start` (default); turn off where separate workers run. */
  DISPATCHER_TIMER: booleanFlag(true),
  /** PEM file of extra CAs trusted for webhook receivers, on top of the default store. */
  WEBHOOK_CA_FILE: optionalString,
  /**
   * How long the HTTP server keeps an idle keep-alive connection open. Longer than the 60 s idle
   * timeout of common load balancers and proxies, so the proxy, never this server, closes an idle
   * connection first: a server closing it first races a request the proxy is sending on it.
   * The headers timeout is derived from it (HTTP_HEADERS_TIMEOUT_MARGIN_MS above).
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(61_000).max(600_000).default(65_000),
  /** How long a stopping server waits for in-flight requests and sends before closing them. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  /** Deliveries claimed per worker round (1-1000). */
  WORKER_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  SEED_DEMO: booleanFlag(false),
  /** MCP: comma-separated toolsets (registry groups) to expose; empty means all. */
  MCP_TOOLSETS: optionalString,
  /** MCP: expose only operations without side effects. */
  MCP_READ_ONLY: booleanFlag(false),
  /** MCP: extra Host header values accepted on /mcp besides the PUBLIC_BASE_URL host and localhost. */
  MCP_ALLOWED_HOSTS: optionalString,
  /** MCP: Origin values accepted on /mcp besides PUBLIC_BASE_URL's origin. */
  MCP_ALLOWED_ORIGINS: optionalString,
  /** Browser origins allowed to call /api/v1 across origins; none by default (no CORS headers at all). */
  CORS_ALLOWED_ORIGINS: corsOrigins,
  /** Prometheus metrics on their own port (never the API's); unset, no metrics server and nothing counted. */
  METRICS_PORT: optionalPort,
  /** Interface of the metrics server; loopback unless an operator opens it on purpose. */
  METRICS_HOST: optionalString,
});

export type RawConfig = z.infer<typeof ConfigSchema>;

export interface Config extends Omit<RawConfig, 'PUBLIC_BASE_URL' | 'METRICS_HOST'> {
  /** Canonical base URL without a trailing slash; never derived from a Host header. */
  PUBLIC_BASE_URL: string;
  /** Where the metrics server listens when METRICS_PORT is set (default 127.0.0.1). */
  METRICS_HOST: string;
  /** True when the embedded PGlite database is used (no DATABASE_URL). */
  embedded: boolean;
  /**
   * DATABASE_URL goes through a transaction-mode pooler (PgBouncer): said by a DATABASE_DIRECT_URL
   * that differs from it. Statements are then sent unprepared, since consecutive ones may run on
   * different server connections (PgBouncer before 1.21 keeps no prepared statements across them).
   */
  pooled: boolean;
}

export const DEFAULT_METRICS_HOST = '127.0.0.1';

/**
 * The headers timeout sits this far above the keep-alive timeout: a request a proxy starts on a
 * connection just before its keep-alive expires still gets its whole header time (Node's own
 * guidance: headersTimeout above keepAliveTimeout, https://nodejs.org/api/http.html#serverheaderstimeout).
 */
export const HTTP_HEADERS_TIMEOUT_MARGIN_MS = 1_000;

/**
 * The client's deadline on a statement sits this far above the server's statement_timeout, so a
 * slow statement is cancelled by the server (its connection kept) before the client would discard
 * the connection; only a server that does not answer at all meets the client's deadline.
 */
export const DATABASE_DEADLINE_MARGIN_MS = 1_000;

/**
 * The waits of the service's PostgreSQL pools. Behind a transaction-mode pooler (pooled) no
 * statement_timeout is sent as a startup parameter (PgBouncer refuses unknown ones); set it on the
 * role there (ALTER ROLE … SET statement_timeout); the client's deadline holds either way.
 */
export function databaseWaits(config: Pick<Config, 'DATABASE_STATEMENT_TIMEOUT_MS' | 'pooled'>): { statementTimeoutMs?: number; deadlineMs: number } {
  const deadlineMs = config.DATABASE_STATEMENT_TIMEOUT_MS + DATABASE_DEADLINE_MARGIN_MS;
  return config.pooled ? { deadlineMs } : { statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS, deadlineMs };
}

/** The HTTP server's idle and header timeouts, both from HTTP_KEEP_ALIVE_TIMEOUT_MS. */
export function httpTimeouts(config: Pick<Config, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'>): { keepAliveTimeoutMs: number; headersTimeoutMs: number } {
  return {
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    headersTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS + HTTP_HEADERS_TIMEOUT_MARGIN_MS,
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Interfaces that listen everywhere: a browser cannot open them, so the base URL names loopback. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/**
 * Without PUBLIC_BASE_URL, the URL this server is reached at: HOST and PORT, so the printed URL,
 * /docs and the links it serves all name one origin (a wildcard HOST becomes 127.0.0.1).
 */
export function defaultPublicBaseUrl(host: string, port: number): string {
  const name = WILDCARD_HOSTS.has(host) ? '127.0.0.1' : host;
  return `http://${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}:${port}`;
}

/** Parses settings and applies the fail-closed rules; throws one readable line on any problem. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const raw = parsed.data;
  const embedded = raw.DATABASE_URL === undefined;
  if (!embedded && raw.DATABASE_ANON_URL === undefined) {
    // Public routes must run as the least-privilege role; refuse to start rather than fall back.
    throw new ConfigError('Missing required setting DATABASE_ANON_URL: with DATABASE_URL set, public routes need the least-privilege api_anon connection.');
  }
  if (!embedded && raw.ENCRYPTION_KEY === undefined) {
    throw new ConfigError('Missing required setting ENCRYPTION_KEY: with DATABASE_URL set, secrets at rest need a configured 32-byte key.');
  }
  if (embedded && raw.DATABASE_MIGRATION_URL !== undefined) {
    throw new ConfigError('Invalid configuration: DATABASE_MIGRATION_URL needs DATABASE_URL (it is the schema owner of the same PostgreSQL database).');
  }
  if (embedded && raw.DATABASE_DIRECT_URL !== undefined) {
    throw new ConfigError('Invalid configuration: DATABASE_DIRECT_URL needs DATABASE_URL (it is the direct connection to the same PostgreSQL database).');
  }
  if (raw.METRICS_HOST !== undefined && raw.METRICS_PORT === undefined) {
    // Half a setting is a mistake, not a choice: say so rather than silently serve no metrics.
    throw new ConfigError('Invalid configuration: METRICS_HOST is set but METRICS_PORT is not: set METRICS_PORT to serve metrics, or unset METRICS_HOST.');
  }
  if (raw.METRICS_PORT !== undefined && raw.METRICS_PORT !== 0 && raw.METRICS_PORT === raw.PORT) {
    throw new ConfigError(`Invalid configuration: METRICS_PORT must differ from PORT (${raw.PORT}): metrics are never served on the public API port.`);
  }
  const directUrl = raw.DATABASE_DIRECT_URL ?? raw.DATABASE_URL;
  const publicBaseUrl = (raw.PUBLIC_BASE_URL ?? defaultPublicBaseUrl(raw.HOST, raw.PORT)).replace(/\/+$/, '');
  return {
    ...raw,
    DATABASE_DIRECT_URL: directUrl,
    DATABASE_MIGRATION_URL: raw.DATABASE_MIGRATION_URL ?? directUrl,
    PUBLIC_BASE_URL: publicBaseUrl,
    METRICS_HOST: raw.METRICS_HOST ?? DEFAULT_METRICS_HOST,
    embedded,
    pooled: directUrl !== raw.DATABASE_URL,
  };
}
