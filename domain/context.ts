import type pino from 'pino';
import type { Database, Db } from './db/client.ts';
import type { SqlClient } from './db/sql.ts';
import { TRANSACTION_OPTIONS } from './db/client.ts';
import type { SecretBox } from './kernel/crypto.ts';
import type { Config } from './kernel/config.ts';
import type { Scope } from './kernel/scopes.ts';
import type { UrlSafetyOptions } from './webhooks/url-safety.ts';
import { DomainError } from './kernel/errors.ts';
import { hasScope } from './kernel/scopes.ts';

/** The caller as resolved from an API key (spec "API key (as resolved at authentication)"). */
export interface Principal {
  apiKeyId: string;
  apiKeyName: string;
  userId: string;
  /** The company the key is bound to, when bound; such a key acts on that company only. */
  companyId: string | null;
  scopes: string[];
  mode: 'test' | 'live';
  /** Requests allowed per one-minute window for this key. */
  rateLimitPerMinute: number;
  /**
   * Set when the key record is an OAuth grant's (docs/oauth.md): it acts only on the companies
   * the person granted, on top of every rule an API key obeys.
   */
  grant?: { id: string; companyIds: readonly string[] } | null;
}

/** Long-lived collaborators built once at start-up and shared by every request. */
export interface Services {
  config: Config;
  database: Database;
  secretBox: SecretBox;
  logger: pino.Logger;
  /** Injectable clock: rate-limit windows and expiries never read the wall clock directly. */
  now: () => Date;
  /** How webhook URLs are checked: the DNS resolver (injected in tests) and allowed private ranges. */
  webhookUrlPolicy: Required<UrlSafetyOptions>;
  /** Loops this process runs besides answering requests, counted by whatever starts them (health and metrics report them). */
  loops: { delivery: number; operations: number };
}

/** Everything a domain verb may use. One per request (or per worker task). */
export interface OperationContext {
  services: Services;
  /** null on public routes called anonymously, and for system actors (the dispatcher). */
  actor: Principal | null;
  requestId: string;
  /** The client to query with: the root client, or the open transaction. */
  db: Db;
  /**
   * Set for operations declared `database: 'bare'`: where readRows sends their statements (as
   * api_anon on public routes); `db` then refuses any use.
   */
  sql?: SqlClient;
  inTransaction: boolean;
  /** Dry runs do every check and write, then roll back (DESIGN.md §6 "dry run"). */
  dryRun: boolean;
  /** Event types emitted by this invocation, in order; a dry run reports them as would-be events. */
  emitted?: string[];
}

/** Runs `fn` in a transaction, reusing one that is already open so writes and events commit together. */
export async function withTransaction<T>(ctx: OperationContext, fn: (tx: OperationContext) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  return ctx.services.database.prisma.$transaction((tx) => fn({ ...ctx, db: tx, inTransaction: true }), TRANSACTION_OPTIONS);
}

/**
 * One statement through the bare driver (no Prisma pipeline), wherever the context is: outside a
 * transaction on the pool (a prepared statement on PostgreSQL), inside one on that transaction's
 * own connection, as `api_anon` on public routes. So each statement has one text, and its rows
 * parse the same every time (domain/db/sql.ts: int8 → bigint, date → text).
 */
export function readRows<T>(ctx: OperationContext, text: string, params: readonly unknown[]): Promise<T[]> {
  return (ctx.sql ?? ctx.services.database.sqlFor(ctx.db)).query<T>(text, params);
}

/** readRows for long reads: each row handed to `onRow` as it arrives, none kept (SqlClient.eachRow). */
export function eachRow<T>(ctx: OperationContext, text: string, params: readonly unknown[], onRow: (row: T) => void): Promise<number> {
  return (ctx.sql ?? ctx.services.database.sqlFor(ctx.db)).eachRow<T>(text, params, onRow);
}

/** Authorise in the domain too: surface filters are a convenience, this check is correctness. */
export function requireScope(ctx: OperationContext, scope: Scope): Principal {
  const actor = requireActor(ctx);
  if (!hasScope(actor.scopes, scope)) {
    throw new DomainError('INSUFFICIENT_SCOPE', {
      message: `This API key lacks the ${scope} scope.`,
      requiredScope: scope,
    });
  }
  return actor;
}

export function requireActor(ctx: OperationContext): Principal {
  if (!ctx.actor) throw new DomainError('UNAUTHENTICATED', { message: 'An API key is required.' });
  return ctx.actor;
}
