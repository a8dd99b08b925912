import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyMode } from '../../../domain/apikeys/keys.ts';
import { ACTOR_TYPES } from '../../../domain/audit/append.ts';
import { MembershipRole } from '../../../domain/companies/schemas.ts';
import { columnOf } from '../../../domain/db/model-columns.ts';
import { IDEMPOTENCY_STATES } from '../../../domain/idempotency/records.ts';
import { ACCOUNT_TYPES, ENTRY_STATES, JournalEntry, VAT_CODES } from '../../../domain/ledger/schemas.ts';
import { COMPARATIVE_KINDS } from '../../../domain/ledger/comparatives.ts';
import { OPERATION_STATUSES, TERMINAL_STATUSES as FINISHED_OPERATION_STATUSES } from '../../../domain/operations/schemas.ts';
import { Agi, SalaryRunStatus } from '../../../domain/payroll/schemas.ts';
import { VatReturn } from '../../../domain/tax/schemas.ts';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES } from '../../../domain/webhooks/schemas.ts';
import { readQueueGauges } from '../../../domain/observability/queue-gauges.ts';
import { claimDeliveries } from '../../../domain/webhooks/claim.ts';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeCompany, makeWebhook } from '../../helpers/factories.ts';
import { readPrismaSchema } from '../../helpers/prisma-schema.ts';

/**
 * Facts that the code and the database both state, compared with the migrated database of each
 * engine (never with a copy of the SQL): every TypeScript list of statuses and kinds with the
 * CHECK constraint that lists the same values in SQL, and prisma/schema.prisma with the tables and
 * columns the migrations build. A migration or a list that changes alone fails here.
 */

/**
 * Every column whose values a CHECK constraint lists, with the TypeScript list that must say the
 * same. `subsets`: lists of some of the values that other CHECK rules of the table use (e.g.
 * "these statuses and only these have finished_at"), each with its own TypeScript list.
 */
const LISTS: Readonly<Record<string, { values: readonly string[]; subsets?: Readonly<Record<string, readonly string[]>> }>> = {
  'memberships.role': { values: MembershipRole.options },
  'api_keys.mode': { values: KeyMode.options },
  'idempotency_records.state': { values: IDEMPOTENCY_STATES },
  'audit_log.actor_type': { values: ACTOR_TYPES },
  'webhook_deliveries.status': { values: DELIVERY_STATUSES },
  'webhook_delivery_attempts.outcome': { values: ATTEMPT_OUTCOMES },
  'accounts.vat_code': { values: VAT_CODES },
  'journal_entries.status': { values: ENTRY_STATES },
  'journal_entries.currency': { values: [...JournalEntry.shape.currency.values] },
  'operations.status': { values: OPERATION_STATUSES, subsets: { 'finished (finished_at is set)': FINISHED_OPERATION_STATUSES } },
  'salary_runs.status': { values: SalaryRunStatus.options },
  'agi_declarations.status': { values: Agi.shape.status.options },
  'vat_returns.status': { values: VatReturn.shape.status.options },
  'comparative_balances.kind': { values: COMPARATIVE_KINDS },
};

/** Where a CHECK names values of a column: the whole constraint (the column's list) or a part of a rule. */
interface Listing {
  column: string;
  values: string[];
  whole: boolean;
  constraint: string;
}

const literals = (list: string): string[] =>
  list.split(', ').map((item) => {
    const literal = /^'([^']*)'::text$/.exec(item);
    if (!literal) throw new Error(`not a text literal: ${item}`);
    return literal[1]!;
  });

/** Reads the column lists out of one CHECK as PostgreSQL prints it (pg_get_constraintdef). */
function listingsOf(table: string, constraint: string): Listing[] {
  const whole = /^CHECK \(\((\w+) = ANY \(ARRAY\[([^\]]*)\]\)\)\)$/.exec(constraint) ?? /^CHECK \(\((\w+) = ('[^']*'::text)\)\)$/.exec(constraint);
  if (whole) return [{ column: `${table}.${whole[1]}`, values: literals(whole[2]!), whole: true, constraint }];
  const parts = [...constraint.matchAll(/\b(\w+) = ANY \(ARRAY\[([^\]]*)\]\)/g), ...constraint.matchAll(/\b(\w+) = ('[^']*'::text)/g)];
  return parts.map((part) => ({ column: `${table}.${part[1]}`, values: literals(part[2]!), whole: false, constraint }));
}

const sorted = (values: readonly string[]): string[] => [...values].sort();

describe.each(DB_TARGETS)('facts in the code and in the migrated database (%s)', (target) => {
  let t: TestServices;
  let listings: Listing[];
  beforeAll(async () => {
    t = await createTestServices(target);
    const checks = await t.services.database.sql.query<{ table: string; constraint: string }>(
      `SELECT c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS constraint
         FROM pg_constraint c
        WHERE c.contype = 'c' AND c.connamespace = 'public'::regnamespace`,
    );
    listings = checks.flatMap((check) => listingsOf(check.table, check.constraint));
  });
  afterAll(async () => t?.close());

  describe('statuses and kinds: every TypeScript list against the CHECK that lists them', () => {
    it('every column a CHECK lists has its TypeScript list here, and every list here has its CHECK', () => {
      const listed = listings.filter((listing) => listing.whole).map((listing) => listing.column);
      expect(sorted(listed)).toEqual(sorted(Object.keys(LISTS)));
    });

    it.each(Object.entries(LISTS))('%s: the CHECK lists exactly the TypeScript values', (column, list) => {
      const [check] = listings.filter((listing) => listing.whole && listing.column === column);
      expect(sorted(check?.values ?? []), check?.constraint).toEqual(sorted(list.values));
    });

    it("every value another CHECK rule compares a listed column with is one of the column's values", () => {
      const strays = listings
        .filter((listing) => !listing.whole && LISTS[listing.column])
        .flatMap((listing) =>
          listing.values.filter((value) => !LISTS[listing.column]!.values.includes(value)).map((value) => `${listing.constraint}: ${value}`),
        );
      expect(strays).toEqual([]);
    });

    it('every list of several values in another CHECK rule is a TypeScript subset, value for value', () => {
      const lists = listings.filter((listing) => !listing.whole && listing.values.length > 1);
      expect(lists.length).toBeGreaterThan(0);
      for (const listing of lists) {
        const subsets = Object.values(LISTS[listing.column]?.subsets ?? {}).map(sorted);
        expect(subsets, `${listing.constraint} has no TypeScript subset listing the same values`).toContainEqual(sorted(listing.values));
      }
      for (const [column, list] of Object.entries(LISTS)) {
        for (const [name, subset] of Object.entries(list.subsets ?? {})) {
          const found = lists.some((listing) => listing.column === column && JSON.stringify(sorted(listing.values)) === JSON.stringify(sorted(subset)));
          expect(found, `${column}: no CHECK lists the ${name} subset ${subset.join(', ')}`).toBe(true);
        }
      }
    });

    it("the account types are the values accounts.type's generated column can take", async () => {
      const [generated] = await t.services.database.sql.query<{ expression: string }>(
        `SELECT pg_get_expr(d.adbin, d.adrelid) AS expression
           FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
          WHERE d.adrelid = 'accounts'::regclass AND a.attname = 'type' AND a.attgenerated = 's'`,
      );
      // The CASE's results (THEN and ELSE), not its conditions (the first digit it tests).
      const results = [...(generated?.expression ?? '').matchAll(/(?:THEN|ELSE) '([^']*)'::text/g)].map((match) => match[1]!);
      expect(sorted(results)).toEqual(sorted(ACCOUNT_TYPES));
    });
  });

  describe('prisma/schema.prisma against the tables and columns the migrations build', () => {
    const models = readPrismaSchema();
    let columns: { table: string; column: string; type: string; nullable: boolean; default: string | null }[];
    beforeAll(async () => {
      columns = await t.services.database.sql.query(
        `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
                CASE WHEN a.attgenerated <> '' THEN 'generated' ELSE pg_get_expr(d.adbin, d.adrelid) END AS default
           FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
           LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
            AND c.relname <> '_prisma_migrations'`,
      );
    });

    it('every table has a model and every model a table', () => {
      expect(sorted([...new Set(columns.map((column) => column.table))])).toEqual(sorted(models.map((model) => model.table)));
    });

    it.each(models.map((model) => [model.model, model] as const))('%s: the same columns, each of the same type, nullability and default', (_, model) => {
      const shape = (column: { type: string; nullable: boolean; default: string | null }) => ({
        type: column.type,
        nullable: column.nullable,
        default: column.default,
      });
      const inDatabase = Object.fromEntries(columns.filter((column) => column.table === model.table).map((column) => [column.column, shape(column)]));
      const inSchema = Object.fromEntries(model.columns.map((column) => [column.column, shape(column)]));
      expect(inSchema).toEqual(inDatabase);
    });

    it('every column is its field’s name in snake_case: the rule raw select lists are derived by (domain/db/model-columns.ts)', () => {
      const exceptions = models.flatMap((model) =>
        model.columns.filter((column) => column.column !== columnOf(column.field)).map((column) => `${model.model}.${column.field}`),
      );
      expect(exceptions).toEqual([]);
    });
  });

  describe('what is claimable: one definition for the claim, the backlog gauges and health', () => {
    it('all three count the rows the spec says a claim takes: pending or failed, due, with a webhook', async () => {
      const db = t.services.database.prisma;
      const companyId = await makeCompany(db);
      const webhookId = await makeWebhook(t.services, { companyId });
      // For every status: two rows due a minute ago and one due in an hour, with the webhook;
      // one due row whose webhook was deleted (webhook_id null). Spec "States and transitions",
      // rules 3 and 4: only the due pending and failed rows with a webhook are claimable, 2 + 2.
      await db.$executeRawUnsafe(
        `INSERT INTO webhook_deliveries (webhook_id, company_id, event_type, payload, status, dead_reason, next_attempt_at)
         SELECT w, $2::uuid, 'company.updated', '{}'::jsonb, s, CASE WHEN s = 'dead' THEN 'test' END, now() + due
           FROM unnest($3::text[]) AS s,
                (VALUES ($1::uuid, interval '-1 minute'), ($1::uuid, interval '-1 minute'), ($1::uuid, interval '1 hour'),
                        (NULL::uuid, interval '-1 minute')) AS r(w, due)`,
        webhookId,
        companyId,
        [...DELIVERY_STATUSES],
      );
      const now = t.services.now();
      const gauges = await readQueueGauges(t.services);
      const [health] = await t.services.database.sql.query<{ due: bigint }>('SELECT due FROM delivery_backlog($1)', [now]);
      let claimed = -1;
      await db
        .$transaction(async (tx) => {
          claimed = (await claimDeliveries(tx, 1000, now)).length;
          throw new Error('roll the claim back');
        })
        .catch((error: unknown) => {
          if (!(error instanceof Error && error.message === 'roll the claim back')) throw error;
        });
      expect({ claim: claimed, gauges: gauges.due, health: Number(health?.due) }).toEqual({ claim: 4, gauges: 4, health: 4 });
    });
  });
});
