import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { dereference, discoveryApp } from '../../helpers/discovery.ts';
import { API_PREFIX } from '../../../registry/api-prefix.ts';
import { FIRST_BOOKS_YEAR, LAST_BOOKS_YEAR } from '../../../domain/kernel/books-dates.ts';
import { HOSTILE_DATES, HOSTILE_INSTANTS, HOSTILE_MONTHS, dateCursor, documentedOperations, takesDate, type DocOperation } from '../../fuzz/hostile.ts';

/**
 * Every date the API takes — query parameters, body fields at any depth, and the dates inside
 * cursors — with each value that is no day the books can hold: a 400 naming the field for
 * parameters and fields, a fresh first page for cursors (spec Errors 4: a malformed cursor resets),
 * never a 500. Before issue 28, year 0000 answered 500 on seven operations.
 */

const kindOf = (example: unknown, format: unknown): 'date' | 'instant' | 'month' => {
  if (format === 'date-time' || (typeof example === 'string' && example.includes('T'))) return 'instant';
  if (format === 'date' || (typeof example === 'string' && example.length === 10)) return 'date';
  return 'month';
};
const HOSTILE = { date: HOSTILE_DATES, instant: HOSTILE_INSTANTS, month: HOSTILE_MONTHS } as const;
const VALID = { date: '2026-03-10', instant: '2026-03-10T00:00:00Z', month: '2026-03' } as const;

/** The body fields (dotted path) whose example is a date, an instant or a month. */
function dateFields(value: unknown, prefix = ''): { path: string; example: string }[] {
  if (Array.isArray(value)) return value.length > 0 ? dateFields(value[0], `${prefix}0.`) : [];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, child]) =>
    typeof child === 'string' && takesDate(undefined, child) ? [{ path: `${prefix}${name}`, example: child }] : dateFields(child, `${prefix}${name}.`),
  );
}
function setAt(target: unknown, path: string, value: string): void {
  const keys = path.split('.');
  let node = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1) as string] = value;
}

describe.each(DB_TARGETS)('dates the books cannot hold are refused, never a 500 (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof discoveryApp>;
  let tenant: Tenant;
  let operations: DocOperation[];

  beforeAll(async () => {
    t = await createTestServices(target, { config: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    app = discoveryApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    const served = await call(app, 'GET', `${API_PREFIX}/openapi.json`);
    operations = documentedOperations((await dereference(served.body)) as never);
  });
  afterAll(async () => t?.close());

  const pathOf = (op: DocOperation): string =>
    API_PREFIX +
    op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (name === 'companyId') return tenant.companyId;
      const parameter = op.parameters.find((p) => p.in === 'path' && p.name === name);
      return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.example ?? randomUUID()));
    });
  const headersOf = (op: DocOperation): Record<string, string> => ({
    authorization: `Bearer ${tenant.key}`,
    ...(op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key') && { 'idempotency-key': randomUUID() }),
  });

  it(`refuses query dates outside ${FIRST_BOOKS_YEAR}-${LAST_BOOKS_YEAR} or not on the calendar with a 400 naming the parameter`, async () => {
    let checked = 0;
    for (const op of operations) {
      const params = op.parameters.filter((p) => p.in === 'query' && takesDate(p.schema, p.example ?? p.schema?.example));
      for (const param of params) {
        const kind = kindOf(param.example ?? param.schema?.example, param.schema?.format);
        for (const hostile of HOSTILE[kind]) {
          const query = new URLSearchParams(
            params.map((p) => [p.name, p === param ? hostile : VALID[kindOf(p.example ?? p.schema?.example, p.schema?.format)]]),
          );
          const response = await call(app, op.method, `${pathOf(op)}?${query}`, { headers: headersOf(op) });
          const context = `${op.id} ${param.name}=${hostile} → ${response.status} ${response.text.slice(0, 200)}`;
          expect(response.status, context).toBe(400);
          expect(
            response.body.error.details.map((d: { path: string }) => d.path),
            context,
          ).toContain(`query.${param.name}`);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('refuses body dates the books cannot hold with a 400 naming the field', async () => {
    let checked = 0;
    for (const op of operations.filter((each) => each.body?.contentType === 'application/json' && each.body.example !== undefined)) {
      for (const field of dateFields(op.body?.example)) {
        const kind = kindOf(field.example, undefined);
        for (const hostile of HOSTILE[kind]) {
          const body = structuredClone(op.body?.example);
          setAt(body, field.path, hostile);
          const response = await call(app, op.method, pathOf(op), { headers: headersOf(op), body });
          const context = `${op.id} ${field.path}=${hostile} → ${response.status} ${response.text.slice(0, 200)}`;
          expect(response.status, context).toBe(400);
          expect(
            response.body.error.details.map((d: { path: string }) => d.path),
            context,
          ).toContain(`body.${field.path}`);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('treats a cursor carrying such a date as stale: the first page, never a 500', async () => {
    const lists = operations.filter((op) => op.method === 'GET' && op.parameters.some((p) => p.in === 'query' && p.name === 'cursor'));
    expect(lists.length).toBeGreaterThan(5);
    for (const op of lists) {
      await fc.assert(
        fc.asyncProperty(dateCursor([`events:${tenant.companyId}`]), async (cursor) => {
          const response = await call(app, 'GET', `${pathOf(op)}?cursor=${cursor}`, { headers: headersOf(op) });
          const context = `${op.id} cursor ${Buffer.from(cursor, 'base64url').toString()} → ${response.status} ${response.text.slice(0, 200)}`;
          expect(response.status, context).toBeLessThan(500);
        }),
        { numRuns: 25, seed: 28 },
      );
    }
  });
});
