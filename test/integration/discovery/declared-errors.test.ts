import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { call } from '../../helpers/http.ts';
import { dereference, discoveryApp } from '../../helpers/discovery.ts';
import { registry } from '../../../registry/index.ts';
import { buildRegistry } from '../../../registry/build-registry.ts';
import { ERROR_CATALOG } from '../../../registry/error-catalog.ts';
import { errorsOf, pipelineErrors } from '../../../registry/errors-of.ts';
import { groupDocFile } from '../../../discovery/reference-docs.ts';
import { errorResponseKey } from '../../../discovery/openapi.ts';

/**
 * Facts stated once (issue 9): an operation's errors are its declared `errors` plus the ones the
 * pipeline derives from its traits, and every generated surface reads that one list (errorsOf).
 */

/** The codes with an example under a status (in openapi.json?examples=all). */
const examplesUnder = (operation: any, status: number): string[] =>
  Object.keys(operation.responses[errorResponseKey(status)]?.content['application/json'].examples ?? {});
/** The codes openapi.json's response for a status names in its description. */
const namedUnder = (operation: any, status: number): string[] =>
  (operation.responses[errorResponseKey(status)]?.description ?? '').match(/\b[A-Z][A-Z_]+[A-Z]\b/g)?.filter((word: string) => word in ERROR_CATALOG) ?? [];
const FULL = '/api/v1/openapi.json?examples=all';

describe('declared errors reach every generated surface', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices('pglite');
  });
  afterAll(async () => t?.close());

  it('documents the 409 that retry answers, and every declared error of every operation, in openapi.json', async () => {
    const app = discoveryApp(t.services);
    const contract: any = await dereference((await call(app, 'GET', '/api/v1/openapi.json')).body);
    const document: any = await dereference((await call(app, 'GET', FULL)).body);
    const retry = document.paths['/webhook-deliveries/{id}/retry'].post;
    expect(examplesUnder(retry, 409)).toEqual(expect.arrayContaining(['CONFLICT', 'IDEMPOTENCY_IN_PROGRESS']));
    expect(examplesUnder(retry, 404)).toEqual(['NOT_FOUND']);
    for (const op of registry.operations) {
      const operation = document.paths[op.path][op.method.toLowerCase()];
      const named = contract.paths[op.path][op.method.toLowerCase()];
      for (const code of errorsOf(op)) {
        expect(examplesUnder(operation, ERROR_CATALOG[code].status), `${op.id} ${code}`).toContain(code);
        expect(namedUnder(named, ERROR_CATALOG[code].status), `${op.id} ${code}`).toContain(code);
      }
      // Nothing beyond errorsOf: the document keeps no list of its own.
      const documented = Object.entries(operation.responses)
        .filter(([status]) => status === 'default' || Number(status) >= 400)
        .flatMap(([, response]: [string, any]) => Object.keys(response.content['application/json'].examples ?? {}));
      expect(documented.sort(), op.id).toEqual([...errorsOf(op)].sort());
      const described = Object.entries(named.responses)
        .filter(([status]) => status === 'default' || Number(status) >= 400)
        .flatMap(([status]) => namedUnder(named, status === 'default' ? 500 : Number(status)));
      expect(described.sort(), op.id).toEqual([...errorsOf(op)].sort());
    }
  });

  it('lists a newly declared error in OpenAPI, the reference docs and the error page with no other edit', async () => {
    const getWebhook = registry.byId('getWebhook')!;
    expect(errorsOf(getWebhook)).not.toContain('CONFLICT');
    const declared = { ...getWebhook, errors: ['CONFLICT' as const] };
    const custom = buildRegistry(registry.operations.map((op) => (op.id === 'getWebhook' ? declared : op)));
    const app = discoveryApp(t.services, { registry: custom });

    const document: any = await dereference((await call(app, 'GET', FULL)).body);
    expect(examplesUnder(document.paths['/companies/{companyId}/webhooks/{id}'].get, 409)).toEqual(['CONFLICT']);
    const contract: any = await dereference((await call(app, 'GET', '/api/v1/openapi.json')).body);
    expect(namedUnder(contract.paths['/companies/{companyId}/webhooks/{id}'].get, 409)).toEqual(['CONFLICT']);
    const reference = (await call(app, 'GET', `/docs/reference/${groupDocFile('webhooks')}`)).text;
    const start = reference.indexOf('\n## Get a webhook\n');
    const section = reference.slice(start, reference.indexOf('\n## ', start + 1));
    expect(section).toContain('| 409 | [CONFLICT]');
    const page = (await call(app, 'GET', '/docs/errors')).text;
    const conflict = page.slice(page.indexOf('<section id="CONFLICT">'), page.indexOf('</section>', page.indexOf('<section id="CONFLICT">')));
    expect(conflict).toContain('<code>getWebhook</code>');
  });

  it("derives the pipeline's own errors from the traits: auth 401/429, scope 403, tenant path 404, body 413/415, idempotency 400/409/422, database 503", () => {
    const create = registry.byId('createWebhook')!;
    expect(pipelineErrors(create).sort()).toEqual(
      [
        'VALIDATION_ERROR',
        'UNAUTHENTICATED',
        'RATE_LIMITED',
        'INSUFFICIENT_SCOPE',
        'NOT_FOUND',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'IDEMPOTENCY_KEY_REQUIRED',
        'IDEMPOTENCY_IN_PROGRESS',
        'IDEMPOTENCY_KEY_REUSED',
        'INTERNAL_ERROR',
        'SERVICE_UNAVAILABLE',
      ].sort(),
    );
    const health = registry.byId('getHealth')!;
    expect(pipelineErrors(health)).toEqual(['VALIDATION_ERROR', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);
    // A public operation that never touches the database cannot find it unavailable.
    expect(pipelineErrors(registry.byId('listEventTypes')!)).toEqual(['VALIDATION_ERROR', 'INTERNAL_ERROR']);
    // Ordered by status, each code once even when declared and derived.
    const statuses = errorsOf({ ...create, errors: ['NOT_FOUND', 'CONFLICT'] }).map((code) => ERROR_CATALOG[code].status);
    expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
    expect(errorsOf({ ...create, errors: ['NOT_FOUND'] }).filter((code) => code === 'NOT_FOUND')).toHaveLength(1);
  });
});
