import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DB_TARGETS, createTestServices, type TestServices } from '../../helpers/db.ts';
import { makeTenant, type Tenant } from '../../helpers/factories.ts';
import { call } from '../../helpers/http.ts';
import { dereference, discoveryApp, responseValidator } from '../../helpers/discovery.ts';
import { registry } from '../../../registry/index.ts';
import { API_PREFIX } from '../../../registry/api-prefix.ts';
import { ERROR_CATALOG } from '../../../registry/error-catalog.ts';
import { documentedOperations, hostileRequest, type DocOperation } from '../../fuzz/hostile.ts';

/**
 * Hostile input against every operation in the served /api/v1/openapi.json (fast-check): never a
 * 5xx, every error a catalogue error in the envelope with its catalogue status and the documented
 * Error schema, every 2xx body valid against the document. Bounded and seeded here; `npm run fuzz`
 * runs the same properties long with a fresh seed (FUZZ_RUNS, FUZZ_SEED).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 10);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? Date.now() : 19;

describe.each(DB_TARGETS)('hostile input from openapi.json (%s)', (target) => {
  let t: TestServices;
  let app: ReturnType<typeof discoveryApp>;
  let tenant: Tenant;
  let operations: Map<string, DocOperation>;
  let validate: ReturnType<typeof responseValidator>;

  beforeAll(async () => {
    // A generous rate limit: the fuzz should reach the handlers, not the limiter.
    t = await createTestServices(target, { config: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    app = discoveryApp(t.services);
    tenant = await makeTenant(t.services.database.prisma);
    const served = await call(app, 'GET', `${API_PREFIX}/openapi.json`);
    expect(served.status).toBe(200);
    const document = await dereference(served.body);
    validate = responseValidator(document);
    operations = new Map(documentedOperations(document as never).map((op) => [op.id, op]));
    if (process.env.FUZZ_RUNS) console.info(`fuzz (${target}): ${RUNS} runs per operation, seed ${SEED}`);
  });
  afterAll(async () => t?.close());

  it('documents every registry operation the fuzz reads', () => {
    for (const op of registry.operations) expect(operations.has(op.id), op.id).toBe(true);
  });

  it.each(registry.operations.map((op) => [op.id] as const))('%s: no 5xx, errors in the envelope, 2xx as documented', async (id) => {
    const op = operations.get(id);
    expect(op, `${id} is not in openapi.json`).toBeDefined();
    const values: Record<string, string> = {};
    for (const parameter of op!.parameters.filter((p) => p.in === 'path')) {
      values[parameter.name] = parameter.name === 'companyId' ? tenant.companyId : String(parameter.example ?? parameter.schema?.example ?? 'x');
    }
    await fc.assert(
      fc.asyncProperty(hostileRequest(op!, API_PREFIX, values, tenant.key), async (request) => {
        const response = await call(app, request.method, request.path, { headers: request.headers, ...(request.body !== undefined && { body: request.body }) });
        const context = `${request.method} ${request.path.slice(0, 200)} [${request.kind}] → ${response.status} ${response.text.slice(0, 300)}`;
        expect(response.status, context).toBeLessThan(500);
        if (response.status >= 400) {
          const code = response.body?.error?.code as keyof typeof ERROR_CATALOG | undefined;
          expect(code && ERROR_CATALOG[code], context).toBeTruthy();
          expect(ERROR_CATALOG[code!].status, context).toBe(response.status);
          expect(response.text, context).not.toMatch(/\n\s+at /);
          const documented = validate(op!.path, op!.method, response.status, response.body);
          if (documented.documented) expect(documented.errors, context).toBeNull();
        } else if (response.status >= 200 && response.status < 300 && response.text !== '' && (response.headers.get('content-type') ?? '').includes('json')) {
          const result = validate(op!.path, op!.method, response.status, response.body);
          expect(result.documented, context).toBe(true);
          expect(result.errors, context).toBeNull();
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
