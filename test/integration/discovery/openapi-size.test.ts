import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createTestServices, type TestServices } from '../../helpers/db.ts';
import { call } from '../../helpers/http.ts';
import { dereference, discoveryApp } from '../../helpers/discovery.ts';
import { registry } from '../../../registry/index.ts';
import { buildOpenApiDocument, OPENAPI_BYTES_PER_ITEM_MAX, openApiItemCount } from '../../../discovery/openapi.ts';
import { EVENT_CATALOG, EVENT_TYPES } from '../../../domain/events/types.ts';

/**
 * openapi.json with shared shapes as components (issue 11): the served document against the
 * same content written inline, and against the size measured before sharing.
 */

/** The served openapi.json before shapes were shared: 224,772 bytes for 13 operations (commit 259fa06). */
const BYTES_BEFORE_SHARING = 224_772;
const OPERATIONS_BEFORE_SHARING = 13;
/** The served document must stay under this share of the same content written inline. */
const SIZE_LIMIT = 0.45;

const BASE = 'https://api.example.test';
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

describe('openapi.json size and content', () => {
  let t: TestServices;
  let served: string;
  /** openapi.json?examples=all: the same document with every body's example, which /docs renders. */
  let servedAll: string;
  beforeAll(async () => {
    t = await createTestServices('pglite');
    served = (await call(discoveryApp(t.services), 'GET', '/api/v1/openapi.json')).text;
    servedAll = (await call(discoveryApp(t.services), 'GET', '/api/v1/openapi.json?examples=all')).text;
  });
  afterAll(async () => t?.close());

  const inline = (examples: 'contract' | 'all' = 'contract') => buildOpenApiDocument(registry.operations, { publicBaseUrl: BASE, share: false, examples });

  it('is a fraction of the same content written inline (sizes printed)', () => {
    const inlineBytes = Buffer.byteLength(JSON.stringify(inline()));
    const sharedBytes = Buffer.byteLength(served);
    const ratio = sharedBytes / inlineBytes;
    console.log(
      `openapi.json: ${BYTES_BEFORE_SHARING.toLocaleString('en')} bytes before sharing (${OPERATIONS_BEFORE_SHARING} operations); ` +
        `now ${registry.operations.length} operations: ${inlineBytes.toLocaleString('en')} bytes inline, ` +
        `${sharedBytes.toLocaleString('en')} served (${(ratio * 100).toFixed(1)} % of inline)`,
    );
    expect(ratio).toBeLessThan(SIZE_LIMIT);
  });

  it('stays within its byte budget per operation or event type (sizes printed)', () => {
    const document = JSON.parse(served);
    const items = openApiItemCount(registry.operations);
    // The divisor is what the document holds: every operation under paths, every event type under webhooks.
    const operations = Object.values(document.paths as Record<string, object>).flatMap((item) => Object.keys(item));
    expect(operations.length + Object.keys(document.webhooks).length).toBe(items);
    const perItem = Buffer.byteLength(served) / items;
    console.log(
      `openapi.json: ${Buffer.byteLength(served).toLocaleString('en')} bytes for ${registry.operations.length} operations and ` +
        `${EVENT_TYPES.length} event types: ${Math.round(perItem).toLocaleString('en')} per item (budget ${OPENAPI_BYTES_PER_ITEM_MAX.toLocaleString('en')}); ` +
        `with every example (?examples=all): ${Buffer.byteLength(servedAll).toLocaleString('en')} bytes`,
    );
    expect(perItem).toBeLessThanOrEqual(OPENAPI_BYTES_PER_ITEM_MAX);
  });

  it('says exactly what the inline document says once every $ref is resolved', async () => {
    const contract: any = await dereference(JSON.parse(served));
    expect(contract.paths).toEqual(((await dereference(inline())) as any).paths);
    const shared: any = await dereference(JSON.parse(servedAll));
    const plain: any = await dereference(inline('all'));
    expect(shared.paths).toEqual(plain.paths);
    expect(Object.keys(shared.webhooks)).toEqual(Object.keys(plain.webhooks));

    // Event payloads are the general Event narrowed per type, where the inline document spells
    // each envelope out: both accept and refuse the same payloads.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const schemaOf = (document: any, type: string) => document.webhooks[type].post.requestBody.content['application/json'];
    for (const type of EVENT_TYPES) {
      const example = schemaOf(shared, type).example;
      expect(schemaOf(plain, type).example).toEqual(example);
      const other = EVENT_TYPES.find((candidate) => EVENT_CATALOG[candidate].object !== EVENT_CATALOG[type].object)!;
      const candidates = [
        example,
        { ...example, type: other },
        { ...example, extra: true },
        { ...example, data: undefined },
        { ...example, data: { ...example.data, object: EVENT_CATALOG[other].example } },
        { ...example, data: { ...example.data, object: { ...example.data.object, id: 'not-a-uuid' } } },
        { ...example, data: { ...example.data, previous_attributes: 'none' } },
      ];
      const sharedCheck = ajv.compile(schemaOf(shared, type).schema);
      const plainCheck = ajv.compile(schemaOf(plain, type).schema);
      const verdicts = candidates.map((candidate) => [sharedCheck(candidate), plainCheck(candidate)]);
      expect(verdicts[0], type).toEqual([true, true]);
      for (const [index, [byShared, byPlain]] of verdicts.entries()) expect(byShared, `${type} #${index}`).toBe(byPlain);
    }
  });

  it('writes each shared shape once: the named resources are components, and a uuid is spelled out once', () => {
    const document = JSON.parse(served);
    for (const name of [
      'Error',
      'ResponseMeta',
      'PaginationMeta',
      'AuditMeta',
      'Webhook',
      'CreatedWebhook',
      'Delivery',
      'Event',
      'EventType',
      'Uuid',
      'DateTime',
      'JournalEntry',
    ]) {
      expect(document.components.schemas, name).toHaveProperty(name);
    }
    // Outside worked examples (an example may itself be a JSON Schema, e.g. listEventTypes').
    const withoutExamples = JSON.stringify(document, (key, value) => (key === 'example' || key === 'examples' ? undefined : value));
    const uuidPattern = JSON.stringify(document.components.schemas.Uuid.pattern);
    expect(withoutExamples.split(uuidPattern).length - 1).toBe(1);
    // The common answers are one component each: a status's first code by its status, and what any operation may answer as Default.
    expect(Object.keys(document.components.responses)).toEqual(expect.arrayContaining(['400', '404', 'Default']));
  });
});
