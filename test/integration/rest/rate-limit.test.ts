import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, createTestServices, type TestServices } from '../../helpers/db.ts';
import { engineSuite } from '../../helpers/engine-suite.ts';
import { makeKey, makeTenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { createApp } from '../../../rest/app.ts';
import { registry } from '../../../registry/index.ts';
import { createServices } from '../../../domain/bootstrap.ts';
import type { Services } from '../../../domain/context.ts';

const LIMIT = 7;
// A fixed clock: the test never straddles a real minute boundary.
let clock = new Date('2026-11-21T10:00:05.000Z');
const now = () => clock;

engineSuite('rate limit', { now, app: (services) => createApp(services, registry) }, (t) => {
  it(`allows exactly ${LIMIT} requests per key per window, then 429 with Retry-After: 60`, async () => {
    const tenant = await makeTenant(t.services.database.prisma);
    const key = await makeKey(t.services.database.prisma, tenant.userId, { rateLimitPerMinute: LIMIT });
    const responses = await Promise.all(Array.from({ length: LIMIT + 5 }, () => call(t.app, 'GET', '/api/v1/companies', { key: key.key })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    for (const response of limited) {
      expect(response.headers.get('retry-after')).toBe('60');
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      expect(response.body.error.code).toBe('RATE_LIMITED');
    }
    // Another key of the same user has its own window.
    const sibling = await call(t.app, 'GET', '/api/v1/companies', { key: tenant.key });
    expect(sibling.status).toBe(200);
    // The next window starts fresh.
    clock = new Date(clock.getTime() + 60_000);
    expect((await call(t.app, 'GET', '/api/v1/companies', { key: key.key })).status).toBe(200);
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('rate limit shared by two app instances on one PostgreSQL', () => {
  let t: TestServices;
  let second: Services;

  beforeAll(async () => {
    t = await createTestServices('postgres', { now });
    second = await createServices(t.config, { logger: t.logs.logger, now, migrate: false });
  });
  afterAll(async () => {
    await second?.database.close();
    await t?.close();
  });

  it(`lets exactly ${LIMIT} through across both instances`, async () => {
    const appA = createApp(t.services, registry);
    const appB = createApp(second, registry);
    const tenant = await makeTenant(t.services.database.prisma);
    const key = await makeKey(t.services.database.prisma, tenant.userId, { rateLimitPerMinute: LIMIT });
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i % 2 === 0 ? appA : appB, 'GET', '/api/v1/companies', { key: key.key })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(30 - LIMIT);
  });
});
