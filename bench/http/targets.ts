/**
 * The HTTP servers the REST and MCP benchmarks load, each serving the same answer so their
 * throughput can be compared in one run:
 * - `bare-hono`: Hono alone, a constant envelope (the ceiling for any Hono handler here);
 * - `middleware`: the same constant answered the way every API response is (rest/: a fresh
 *   request id, the frozen wrapped header set) — the middleware chain the issue compares;
 * - `chain`: our whole app (routing, admission-free public pipeline, validation, output check,
 *   envelope) on an operation that touches no database;
 * - `raw-pg` / `raw-pglite`: a minimal Hono handler doing the read's work with the raw driver
 *   (find the key by digest, list the caller's companies; no rate limit, no validation); the same
 *   for one journal entry (entryPath, the app's own entry SQL) and, on `pg`, a journal entry
 *   commit with its event and deliveries in one transaction (commitPath);
 * - `raw-pg-counted`: the same plus the exact rate-limit count in the key lookup's statement, to
 *   show what counting every request costs the database by itself;
 * - `app-pg` / `app-pglite`: the real app (REST and MCP) with a real key.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { z } from 'zod';
import { API_VERSION } from '../../domain/kernel/version.ts';
import { buildEventPayload, DELIVERY_CHANNEL } from '../../domain/events/emit.ts';
import { ENTRY_BY_ID, ENTRY_SELECT, entryFields, type EntryRow } from '../../domain/ledger/entries.ts';
import { COMPANIES_PAGE } from '../../domain/companies/list.ts';
import type { Services } from '../../domain/context.ts';
import { buildRegistry } from '../../registry/build-registry.ts';
import { defineOperation } from '../../registry/define-operation.ts';
import { createApp } from '../../rest/app.ts';
import { API_PREFIX } from '../../registry/api-prefix.ts';
import { buildApp } from '../../cli/build-app.ts';
import { newRequestId } from '../../pipeline/request-id.ts';
import { wrappedJson } from '../../http/security-headers.ts';

export const READ_PATH = `${API_PREFIX}/companies`;
export const CHAIN_PATH = `${API_PREFIX}/bench/ping`;
export const entryPath = (companyId: string, entryId: string): string => `${API_PREFIX}/companies/${companyId}/journal-entries/${entryId}`;
export const commitPath = (companyId: string, entryId: string): string => `${entryPath(companyId, entryId)}/commit`;
const ENTRY_ROUTE = entryPath(':companyId', ':entryId');
const COMMIT_ROUTE = commitPath(':companyId', ':entryId');

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

const KEY_SQL = 'SELECT id, user_id, company_id, mode FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL';
const COUNTED_KEY_SQL = `
  WITH k AS (SELECT id, user_id, company_id, mode FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL),
       c AS (UPDATE rate_limit_counters SET count = count + 1 WHERE api_key_id = (SELECT id FROM k) RETURNING count)
  SELECT k.*, c.count FROM k LEFT JOIN c ON true`;

/** admit_request's tenancy: the user is a member, the company is not archived and in the key's mode, the key is not bound elsewhere. */
const MEMBER_OF = (user: string, company: string, live: string, keyCompany: string) => `
  (${keyCompany}::uuid IS NULL OR ${keyCompany}::uuid = ${company}::uuid) AND EXISTS (
    SELECT 1 FROM memberships m JOIN companies co ON co.id = m.company_id
     WHERE m.user_id = ${user}::uuid AND m.company_id = ${company}::uuid AND co.archived_at IS NULL AND co.livemode = ${live})`;

/** The app's entry statement (no parameters of its own), restricted to a company the caller may read. */
const ENTRY_SQL = `${ENTRY_SELECT} WHERE e.company_id = $1::uuid AND e.id = $2::uuid AND ${MEMBER_OF('$3', '$1', '$4', '$5')}`;

/** The entry as the API shows it (the app also validates it against its schema; the baseline does not). */
const entryJson = entryFields;

interface KeyRow {
  id: string;
  user_id: string;
  company_id: string | null;
  mode: string;
}
interface CompanyRow {
  id: string;
  name: string;
  org_number: string;
  entity_type: string;
  livemode: boolean;
  created_at: Date;
  updated_at: Date;
  membership_id: string;
  role: string;
  joined_at: string;
}

type Query = <T>(sql: string, params: unknown[]) => Promise<T[]>;

/** The raw baseline: two queries and a JSON answer, nothing else. */
function rawApp(query: Query, keySql = KEY_SQL): Hono {
  const app = new Hono();
  let n = 0;
  app.get(READ_PATH, async (c) => {
    const token = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    if (!token) return c.json({ error: 'unauthenticated' }, 401);
    const [key] = await query<KeyRow>(keySql, [createHash('sha256').update(token).digest('hex')]);
    if (!key) return c.json({ error: 'unauthenticated' }, 401);
    // The app's own statement (domain/companies/list.ts), first page of 50: one row more says whether more follow.
    const rows = await query<CompanyRow>(COMPANIES_PAGE, [key.user_id, key.mode === 'live', key.company_id, null, null, 51, null]);
    const page = rows.slice(0, 50);
    return c.json({
      data: {
        companies: page.map((row) => ({
          id: row.id,
          name: row.name,
          org_number: row.org_number,
          entity_type: row.entity_type,
          livemode: row.livemode,
          created_at: row.created_at.toISOString(),
          updated_at: row.updated_at.toISOString(),
          membership: { id: row.membership_id, role: row.role, joined_at: row.joined_at },
        })),
      },
      meta: { request_id: `req_${(n++).toString(36)}`, api_version: API_VERSION, pagination: { has_more: false, next_cursor: null } },
    });
  });
  app.get(ENTRY_ROUTE, async (c) => {
    const token = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    if (!token) return c.json({ error: 'unauthenticated' }, 401);
    const [key] = await query<KeyRow>(keySql, [createHash('sha256').update(token).digest('hex')]);
    if (!key) return c.json({ error: 'unauthenticated' }, 401);
    const [row] = await query<EntryRow>(ENTRY_SQL, [c.req.param('companyId'), c.req.param('entryId'), key.user_id, key.mode === 'live', key.company_id]);
    if (!row) return c.json({ error: 'not_found' }, 404);
    return c.json({ data: entryJson(row), meta: { request_id: `req_${(n++).toString(36)}`, api_version: API_VERSION } });
  });
  return app;
}

export const rawPgApp = (url: string, counted = false): Hono => {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const app = rawApp(async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[], counted ? COUNTED_KEY_SQL : KEY_SQL);
  // The route always has both parameters (its pattern names them).
  app.post(COMMIT_ROUTE, (c) => rawCommit(pool, c.req.header('authorization'), c.req.param('companyId') ?? '', c.req.param('entryId') ?? ''));
  return app;
};

/*
 * The raw commit: what domain/ledger/commit.ts and domain/events/emit.ts write, with raw `pg`
 * in one transaction, in as few statements as a careful hand-written handler would use:
 *   the key by digest with the path company's tenancy (admit_request's decision, uncounted);
 *   BEGIN; the draft locked FOR UPDATE with its period locked FOR SHARE (lockEntry +
 *   periodForDate); the series counter taken exactly as the app takes it (INSERT … ON CONFLICT
 *   … RETURNING, the row held until COMMIT) and the entry marked committed with that number, in
 *   one statement; the entry read with the app's ENTRY_SELECT; the event row with the entry as
 *   payload, one pending delivery per subscribed webhook and the workers' NOTIFY in emit's one
 *   statement; COMMIT.
 * Left out, and paid by the app: the rate-limit count; scope checks; Zod validation of the
 * params and of the answer; the commit rules checked in JS with their own errors (a SELECT of
 * the lines FOR SHARE of their accounts, active accounts, balance, locked period, closed year —
 * the balance check still runs in the database's journal_entries_guard trigger for both); the
 * event payload's schema check; the audit_log row; idempotency (no Idempotency-Key is sent,
 * so the app skips it too); dry-run support; the envelope's request id and security headers.
 */
const KEY_ACCESS_SQL = `
  SELECT k.id, k.user_id, ${MEMBER_OF('k.user_id', '$2', "(k.mode = 'live')", 'k.company_id')} AS access
    FROM api_keys k WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;
const LOCK_SQL = `
  SELECT e.status, e.series, p.id AS period_id, p.fiscal_year_id
    FROM journal_entries e JOIN periods p ON p.company_id = e.company_id AND p.start_date <= e.date AND p.end_date >= e.date
   WHERE e.company_id = $1::uuid AND e.id = $2::uuid
     FOR UPDATE OF e FOR SHARE OF p`;
const NUMBER_SQL = `
  WITH counter AS (
    INSERT INTO journal_series_counters (company_id, fiscal_year_id, series, last_number)
    VALUES ($1::uuid, $3::uuid, $4, 1)
    ON CONFLICT (company_id, fiscal_year_id, series)
    DO UPDATE SET last_number = journal_series_counters.last_number + 1
    RETURNING last_number
  )
  UPDATE journal_entries SET status = 'committed', number = (SELECT last_number FROM counter),
         fiscal_year_id = $3::uuid, period_id = $5::uuid, committed_at = $6
   WHERE company_id = $1::uuid AND id = $2::uuid`;
const EMIT_SQL = `
  WITH company AS (SELECT livemode FROM companies WHERE id = $1::uuid),
  event AS (
    INSERT INTO events (id, company_id, type, api_version, livemode, payload, created_at)
    SELECT $2::uuid, $1::uuid, $3, $4, c.livemode, jsonb_set($5::jsonb, '{livemode}', to_jsonb(c.livemode)), $6 FROM company c
    RETURNING id, payload
  ),
  queued AS (
    INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, event_type, payload, next_attempt_at)
    SELECT w.id, w.company_id, e.id, $3, e.payload, $6
      FROM webhooks w CROSS JOIN event e
     WHERE w.company_id = $1::uuid AND w.event_type = $3 AND w.disabled_at IS NULL
    RETURNING 1
  )
  SELECT (SELECT count(*)::int FROM queued) AS deliveries,
         (SELECT count(*)::int FROM (SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM (SELECT 1 FROM queued LIMIT 1) q) n) AS notified`;

let commits = 0;

async function rawCommit(pool: pg.Pool, authorization: string | undefined, companyId: string, entryId: string): Promise<Response> {
  const token = BEARER.exec(authorization ?? '')?.[1];
  if (!token) return Response.json({ error: 'unauthenticated' }, { status: 401 });
  const {
    rows: [key],
  } = await pool.query<{ id: string; user_id: string; access: boolean }>(KEY_ACCESS_SQL, [createHash('sha256').update(token).digest('hex'), companyId]);
  if (!key) return Response.json({ error: 'unauthenticated' }, { status: 401 });
  if (!key.access) return Response.json({ error: 'not_found' }, { status: 404 });
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const {
      rows: [draft],
    } = await client.query<{ status: string; series: string; period_id: string; fiscal_year_id: string }>(LOCK_SQL, [companyId, entryId]);
    if (draft?.status !== 'draft') {
      await client.query('ROLLBACK');
      return Response.json({ error: draft ? 'entry_not_draft' : 'not_found' }, { status: draft ? 409 : 404 });
    }
    const now = new Date();
    await client.query(NUMBER_SQL, [companyId, entryId, draft.fiscal_year_id, draft.series, draft.period_id, now]);
    const {
      rows: [row],
    } = await client.query<EntryRow>(ENTRY_BY_ID, [companyId, entryId]);
    const entry = entryJson(row!);
    const eventId = randomUUID();
    const type = 'journal_entry.committed';
    const payload = buildEventPayload({ eventId, type, companyId, livemode: false, object: entry, previousAttributes: null, createdAt: now });
    await client.query(EMIT_SQL, [companyId, eventId, type, API_VERSION, JSON.stringify(payload), now]);
    await client.query('COMMIT');
    return Response.json({ data: entry, meta: { request_id: `req_${(commits++).toString(36)}`, api_version: API_VERSION } });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export const rawPgliteApp = (pglite: PGlite): Hono => rawApp(async <T>(sql: string, params: unknown[]) => (await pglite.query<T>(sql, params)).rows);

const PING = { ok: true, service: 'accounting-platform' };

export function bareHonoApp(): Hono {
  const app = new Hono();
  let n = 0;
  app.get(CHAIN_PATH, (c) => c.json({ data: PING, meta: { request_id: `req_${(n++).toString(36)}`, api_version: API_VERSION } }));
  return app;
}

/** The constant answered with our request id and frozen headers (http/request-id.ts, rest/security-headers.ts). */
export function middlewareApp(): Hono {
  const app = new Hono();
  app.get(CHAIN_PATH, () => {
    const requestId = newRequestId();
    return wrappedJson(requestId, 200, { data: PING, meta: { request_id: requestId, api_version: API_VERSION } });
  });
  return app;
}

/** A public operation that needs no database: the app's whole chain around a constant answer. */
const benchPing = defineOperation({
  id: 'benchPing',
  group: 'platform',
  method: 'GET',
  path: '/bench/ping',
  summary: 'Benchmark ping',
  description: 'Answers a constant; used only by the chain benchmark.',
  auth: { public: true },
  risk: 'L0',
  idempotent: true,
  reversible: true,
  dryRun: false,
  idempotencyKey: 'none',
  sideEffects: ['none'],
  input: {},
  output: z.object({ ok: z.boolean(), service: z.string() }),
  status: 200,
  examples: { response: PING },
  surfaces: ['api'],
  database: 'none',
  handler: async () => ({ data: PING }),
});

export const chainApp = (services: Services) => createApp(services, buildRegistry([benchPing]));
export const fullApp = (services: Services) => buildApp(services);
