import type { Hono } from 'hono';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Services } from '../../domain/context.ts';
import type { AppEnv } from '../../http/app-env.ts';
import { createTestServices, DB_TARGETS, type DbTarget, type TestServiceOptions, type TestServices } from './db.ts';
import { makeTenant, type Tenant } from './factories.ts';

export interface EngineSuiteOptions<A extends Hono<AppEnv>> extends TestServiceOptions {
  /** The app under test, built on the suite's services (e.g. `createApp(services, registry)`). */
  app?: (services: Services) => A;
  /** Make a tenant (a user owning a sandbox company, with an all-scopes test key) before the tests. */
  tenant?: boolean;
}

/**
 * A suite's world on one engine: the services on a fresh migrated database and, when asked for,
 * the app and a tenant. Read in hooks and tests only: they are made in the suite's beforeAll.
 */
export interface EngineEnv<A extends Hono<AppEnv> = Hono<AppEnv>> extends TestServices {
  readonly target: DbTarget;
  readonly app: A;
  readonly tenant: Tenant;
}

/**
 * The per-engine preamble, once: runs `body` as a describe block per engine (PGlite, and
 * PostgreSQL when TEST_DATABASE_URL is set), titled `name (engine)`, with the services made before
 * its tests and closed after them (the PostgreSQL database dropped).
 */
export function engineSuite<A extends Hono<AppEnv> = Hono<AppEnv>>(
  name: string,
  options: EngineSuiteOptions<A>,
  body: (env: EngineEnv<A>, target: DbTarget) => void,
): void {
  describe.each(DB_TARGETS)(`${name} (%s)`, (target) => {
    const { app: buildApp, tenant: wantsTenant, ...serviceOptions } = options;
    let made: { t: TestServices; app?: A; tenant?: Tenant } | undefined;
    const ready = () => {
      if (!made) throw new Error(`${name}: the engine suite's services are made in beforeAll; read them in hooks and tests`);
      return made;
    };
    const env: EngineEnv<A> = {
      target,
      get services() {
        return ready().t.services;
      },
      get logs() {
        return ready().t.logs;
      },
      get config() {
        return ready().t.config;
      },
      get database() {
        return ready().t.database;
      },
      close: () => ready().t.close(),
      get app() {
        const { app } = ready();
        if (!app) throw new Error(`${name}: no app was asked for (options.app)`);
        return app;
      },
      get tenant() {
        const { tenant } = ready();
        if (!tenant) throw new Error(`${name}: no tenant was asked for (options.tenant)`);
        return tenant;
      },
    };

    beforeAll(async () => {
      const t = await createTestServices(target, serviceOptions);
      made = { t };
      if (buildApp) made.app = buildApp(t.services);
      if (wantsTenant) made.tenant = await makeTenant(t.services.database.prisma);
    });
    afterAll(async () => {
      await made?.t.close();
      made = undefined;
    });

    body(env, target);
  });
}
