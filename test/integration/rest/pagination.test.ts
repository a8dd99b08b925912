import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeKey, makeUser } from '../../helpers/factories.ts';
import { callOp, type OpResponse } from '../../helpers/call-op.ts';
import { listCompanies } from '../../../registry/operations/companies/list-companies.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { encodeCursor } from '../../../domain/kernel/pagination.ts';

const MEMBERSHIPS = 2500;
// Few distinct join times (some a microsecond apart) so most rows tie on joined_at.
const JOIN_TIMES = [
  '2026-01-01T00:00:00.000000Z',
  '2026-01-01T00:00:00.000001Z',
  '2026-01-01T00:00:00.000999Z',
  '2026-01-01T00:00:00.001000Z',
  '2026-03-15T12:30:45.123456Z',
];

describe.each(DB_TARGETS)('companies list keyset pagination (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof createApp>;
  let key: string;
  let expectedOrder: string[];

  beforeAll(async () => {
    t = await createTestServices(target);
    app = createApp(t.services, registry);
    const db = t.services.database.prisma;
    const userId = await makeUser(db);
    key = (await makeKey(db, userId)).key;
    // One company per membership; joined_at cycles through the few values above.
    await db.$executeRawUnsafe(
      `WITH c AS (
         INSERT INTO companies (name, org_number, entity_type)
         SELECT 'Company ' || g, '556000-' || lpad(g::text, 4, '0'), 'aktiebolag' FROM generate_series(1, ${MEMBERSHIPS}) g
         RETURNING id
       ), numbered AS (SELECT id, row_number() OVER () AS n FROM c)
       INSERT INTO memberships (user_id, company_id, joined_at)
       SELECT $1::uuid, id, (ARRAY[${JOIN_TIMES.map((j) => `'${j}'::timestamptz`).join(',')}])[(n % ${JOIN_TIMES.length}) + 1]
         FROM numbered`,
      userId,
    );
    const rows = await db.$queryRawUnsafe<{ company_id: string }[]>(
      'SELECT company_id FROM memberships WHERE user_id = $1::uuid ORDER BY joined_at, id',
      userId,
    );
    expectedOrder = rows.map((r) => r.company_id);
  });
  afterAll(async () => t?.close());

  async function walk(limit: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MEMBERSHIPS; page++) {
      const response: OpResponse<typeof listCompanies> = await callOp(app, listCompanies, { key, query: { limit, ...(cursor && { cursor }) } });
      expect(response.status).toBe(200);
      const { companies } = response.body.data;
      seen.push(...companies.map((c: { id: string }) => c.id));
      const { has_more, next_cursor } = response.body.meta.pagination!;
      expect(companies.length).toBeLessThanOrEqual(limit);
      if (!has_more) {
        expect(next_cursor).toBeNull();
        return seen;
      }
      cursor = next_cursor;
    }
    throw new Error('pagination did not terminate');
  }

  it.each([200, 37])('walks all %i-row pages with no row skipped or repeated', async (limit) => {
    const seen = await walk(limit);
    expect(seen.length).toBe(MEMBERSHIPS);
    expect(new Set(seen).size).toBe(MEMBERSHIPS);
    expect(seen).toEqual(expectedOrder);
  });

  it('restarts at page one for malformed, foreign or stale cursors', async () => {
    const first = await callOp(app, listCompanies, { key, query: { limit: 5 } });
    const firstIds = first.body.data.companies.map((c: { id: string }) => c.id);
    const stale = [
      'not-a-cursor',
      '%%%',
      Buffer.from('{"v":0,"l":"companies","at":"2026-01-01T00:00:00Z","id":"x"}').toString('base64url'),
      Buffer.from(JSON.stringify({ v: 1, l: 'companies', at: 'yesterday', id: '00000000-0000-4000-8000-000000000000' })).toString('base64url'),
      encodeCursor('webhook_deliveries', { at: '2026-03-15T12:30:45.123456Z', id: '00000000-0000-4000-8000-000000000000' }),
      Buffer.from('[]').toString('base64url'),
      // Well-formed, but holding instants that do not exist (they reached PostgreSQL as a 500).
      encodeCursor('companies', { at: '2026-13-45T99:99:99Z', id: '00000000-0000-4000-8000-000000000000' }),
      encodeCursor('companies', { at: '2026-02-30T00:00:00.000000Z', id: '00000000-0000-4000-8000-000000000000' }),
      encodeCursor('companies', { at: '0000-01-01T00:00:00Z', id: '00000000-0000-4000-8000-000000000000' }),
      // Longer than any cursor we issue (it was a 400): stale like the rest, so page one.
      encodeCursor('companies', { at: '2026-01-01T00:00:00Z', id: '00000000-0000-4000-8000-000000000000' }) + 'A'.repeat(600),
    ];
    for (const cursor of stale) {
      const response = await callOp(app, listCompanies, { key, query: { limit: 5, cursor } });
      expect(response.status, cursor).toBe(200);
      expect(response.body.data.companies.map((c: { id: string }) => c.id)).toEqual(firstIds);
    }
  });
});
