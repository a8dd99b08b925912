import { describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod';
import { registry } from '../../../registry/index.ts';
import { isPublic, isTenantScoped, isWrite, requiredScope, requiredScopes } from '../../../registry/define-operation.ts';
import { ERROR_CATALOG, ErrorBody } from '../../../registry/error-catalog.ts';
import { EVENT_TYPES, EventEnvelope } from '../../../domain/events/types.ts';
import { API_VERSION } from '../../../domain/kernel/version.ts';
import { buildOpenApiDocument, errorResponseKey, isAnsweredByAnyOperation } from '../../../discovery/openapi.ts';
import type { DescribedOperation } from '../../../discovery/operation-traits.ts';
import { errorsOf } from '../../../registry/errors-of.ts';
import { toJsonSchema } from '../../../discovery/json-schema.ts';

const BASE = 'https://api.example.test';
const operations = registry.operations;
const raw = buildOpenApiDocument(operations, { publicBaseUrl: BASE });
// What a client reads: every $ref resolved in place (shared shapes sit in components).
// The document is plain JSON (typed loosely on purpose); `any` here and below keeps the lookups short.
const document: any = await SwaggerParser.dereference(structuredClone(raw) as never);
// The same document with every body's example (openapi.json?examples=all, what /docs renders).
const full: any = await SwaggerParser.dereference(buildOpenApiDocument(operations, { publicBaseUrl: BASE, examples: 'all' }) as never);
const operationOf = (op: DescribedOperation, from: any = document): any => from.paths[op.path]?.[op.method.toLowerCase()];
/** GPT Actions refuse an operation whose description or summary is longer (platform.openai.com, "Actions in production"). */
const GPT_ACTIONS_DESCRIPTION_MAX = 300;
const rawOperationOf = (op: DescribedOperation): any => raw.paths[op.path]?.[op.method.toLowerCase()];

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with the canonical server from PUBLIC_BASE_URL', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([expect.objectContaining({ url: `${BASE}/api/v1` })]);
    expect((document.info as { version: string }).version).toBe(API_VERSION);
  });

  it('documents every registry operation and nothing else', () => {
    const documented = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(documented.sort()).toEqual(operations.map((op) => op.id).sort());
    expect(registry.operations.every((op) => operationOf(op))).toBe(true);
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s: id, tag, security, extensions', (_id, op) => {
    const operation = operationOf(op);
    expect(operation.operationId).toBe(op.id);
    expect(operation.tags).toEqual([op.group]);
    expect(operation.summary).toBe(op.summary);
    expect(operation.security).toEqual(isPublic(op) ? [] : [{ bearerAuth: requiredScopes(op) }]);
    expect(operation['x-action-risk']).toBe(op.risk);
    expect(operation['x-idempotent']).toBe(op.idempotent);
    expect(operation['x-reversible']).toBe(op.reversible);
    expect(operation['x-dry-run-supported']).toBe(op.dryRun);
    // Absent: GPT Actions then take a GET as not consequential and any other method as consequential, which is isWrite.
    expect(operation).not.toHaveProperty('x-openai-isConsequential');
    expect(isWrite(op)).toBe(op.method !== 'GET');
    expect(operation.description.length).toBeLessThanOrEqual(GPT_ACTIONS_DESCRIPTION_MAX);
    expect(operation.summary.length).toBeLessThanOrEqual(GPT_ACTIONS_DESCRIPTION_MAX);
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s: parameters', (_id, op) => {
    const parameters: any[] = operationOf(op).parameters;
    const named = (location: string) => parameters.filter((p) => p.in === location).map((p) => p.name);
    expect(named('path')).toEqual([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    expect(named('query').filter((name) => name !== 'dry_run')).toEqual(Object.keys(op.input.query?.shape ?? {}));
    expect(named('query').includes('dry_run')).toBe(op.dryRun);
    const key = parameters.find((p) => p.name === 'Idempotency-Key');
    if (op.idempotencyKey === 'none') expect(key).toBeUndefined();
    else expect({ in: key.in, required: key.required ?? false }).toEqual({ in: 'header', required: op.idempotencyKey === 'required' });
    // A query parameter is optional unless it says `required: true`; `false` is never written.
    for (const parameter of parameters) expect(parameter.required).not.toBe(false);
    for (const parameter of parameters.filter((p) => p.in === 'path')) expect(parameter.required).toBe(true);
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s: request body and success response with worked examples', (_id, op) => {
    // Those spec Endpoints 10 asks for (a JSON request body, a 200) are in both documents; a 201's or 202's only in the full one.
    const contract = operationOf(op).responses[String(op.status)]?.content?.['application/json'];
    if (contract) expect('example' in contract).toBe(op.status === 200);
    expect(operationOf(op).requestBody).toEqual(operationOf(op, full).requestBody);
    const operation = operationOf(op, full);
    if (op.input.file) {
      // A multipart upload: the schema, no example (spec Endpoints 10).
      expect(Object.keys(operation.requestBody.content)).toEqual(['multipart/form-data']);
      expect(operation.requestBody.content['multipart/form-data'].example).toBeUndefined();
    } else if (op.input.body) {
      expect(operation.requestBody.content['application/json'].example).toEqual(op.examples.body);
    } else {
      expect(operation.requestBody).toBeUndefined();
    }
    const success = operation.responses[String(op.status)];
    // Binary representations: every media type listed, none enveloped or given an example (spec Endpoints 10).
    for (const { mediaType } of op.produces ?? []) {
      expect(success.content[mediaType]).toEqual({ schema: { type: 'string', contentMediaType: mediaType } });
    }
    if (op.output === null) {
      expect(Object.keys(success.content ?? {})).toEqual((op.produces ?? []).map((r) => r.mediaType));
      return;
    }
    if (op.binaryResponse) {
      expect(Object.keys(success.content)).toEqual([...op.binaryResponse.contentTypes]);
      for (const media of Object.values<any>(success.content)) expect(media).toEqual({ schema: { type: 'string', format: 'binary' } });
      return;
    }
    expect(Object.keys(success.content)).toEqual(['application/json', ...(op.produces ?? []).map((r) => r.mediaType)]);
    const media = success.content['application/json'];
    expect(media.schema.required).toEqual(['data', 'meta']);
    const rawSchema = rawOperationOf(op).responses[String(op.status)].content['application/json'].schema;
    const envelope = rawSchema.$ref ? (raw.components as any).schemas[rawSchema.$ref.split('/').pop()] : rawSchema;
    expect(envelope.properties.meta).toEqual({ $ref: '#/components/schemas/ResponseMeta' });
    expect(media.example.data).toEqual(op.output.parse(op.examples.response));
    expect(media.example.meta).toMatchObject({ request_id: expect.stringMatching(/^req_/), api_version: API_VERSION });
    expect('audit' in media.example.meta).toBe(isWrite(op));
  });

  it.each(operations.map((op) => [op.id, op] as const))('%s: the error responses its traits allow', (_id, op) => {
    const responses = operationOf(op, full).responses;
    // Besides the success: a file's 304 (no body), then the errors: the operation's own statuses,
    // and `default` naming what any operation may answer (401, 403, 429, 5xx) with each status.
    const statuses = Object.keys(responses).filter((status) => status !== String(op.status) && status !== '304' && status !== 'default');
    const answeredByAny = errorsOf(op).filter((code) => isAnsweredByAnyOperation(ERROR_CATALOG[code].status));
    expect('default' in responses).toBe(answeredByAny.length > 0);
    for (const code of answeredByAny) expect(responses.default.description).toContain(`${code} (${ERROR_CATALOG[code].status})`);
    for (const status of statuses) expect(isAnsweredByAnyOperation(Number(status)), status).toBe(false);
    expect('304' in responses).toBe(op.binaryResponse !== undefined);
    expect(answeredByAny.includes('UNAUTHENTICATED')).toBe(!isPublic(op));
    expect(answeredByAny.includes('RATE_LIMITED')).toBe(!isPublic(op));
    expect(answeredByAny.includes('INSUFFICIENT_SCOPE')).toBe(requiredScope(op) !== null);
    expect(answeredByAny).toContain('INTERNAL_ERROR');
    const declared: readonly string[] = op.errors ?? [];
    expect(statuses.includes('404')).toBe(isTenantScoped(op) || op.path.includes('{') || declared.includes('NOT_FOUND'));
    const declaresStatus = (status: number) => declared.some((code) => ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status === status);
    expect(statuses.includes('409')).toBe(op.idempotencyKey !== 'none' || declaresStatus(409));
    expect(statuses.includes('422')).toBe(op.idempotencyKey !== 'none' || declaresStatus(422));
    expect(statuses).toContain('400');
    for (const status of [...statuses, 'default']) {
      if (!(status in responses)) continue;
      const media = responses[status].content['application/json'];
      expect(media.schema).toEqual(full.components.schemas.Error);
      for (const code of Object.keys(media.examples)) expect(errorResponseKey(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status)).toBe(status);
      // openapi.json names the codes; their example bodies are in the full document only.
      expect(operationOf(op).responses[status].content['application/json']).toEqual({ schema: document.components.schemas.Error });
    }
    // Every code errorsOf names (the pipeline's and the declared ones) is named, and an example, under its status.
    for (const code of errorsOf(op)) {
      const key = errorResponseKey(ERROR_CATALOG[code].status);
      expect(Object.keys(responses[key].content['application/json'].examples)).toContain(code);
      expect(operationOf(op).responses[key].description).toContain(code);
    }
  });

  it("shares one Error schema made from the error catalogue's ErrorBody", () => {
    const components = full.components as { schemas: Record<string, unknown>; examples: Record<string, { value: unknown }> };
    expect(document.components.examples).toBeUndefined();
    expect(components.schemas.Error).toEqual(toJsonSchema(ErrorBody, 'output', 'Error').schema);
    for (const op of operations) {
      for (const response of Object.values(rawOperationOf(op).responses as Record<string, any>)) {
        const media = (response.$ref ? (raw.components as any).responses[response.$ref.split('/').pop()] : response).content?.['application/json'];
        if (media?.examples) expect(media.schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
    for (const example of Object.values(components.examples)) expect(ErrorBody.safeParse(example.value).success).toBe(true);
  });

  it('lists every event type under webhooks with its envelope payload schema and, in the full document, a valid example', () => {
    for (const type of EVENT_TYPES) expect(document.webhooks[type].post.requestBody.content['application/json'].example).toBeUndefined();
    const webhooks = full.webhooks as Record<string, any>;
    expect(Object.keys(webhooks)).toEqual([...EVENT_TYPES]);
    for (const type of EVENT_TYPES) {
      const media = webhooks[type].post.requestBody.content['application/json'];
      // The general Event (every field, closed), narrowed by this type's `type` and `data`.
      expect(media.schema.allOf).toEqual([document.components.schemas.Event]);
      expect(media.schema.allOf[0].required).toEqual(expect.arrayContaining(['id', 'type', 'api_version', 'created_at', 'company_id', 'data']));
      expect(media.schema.properties.type).toEqual({ type: 'string', const: type });
      expect(EventEnvelope.parse(media.example).type).toBe(type);
      expect(webhooks[type].post.parameters[0].name).toBe('X-Service-Signature');
    }
  });
});

const base = registry.byId('updateCompany')!;
const { handler: _handler, ...described } = base;
const synthetic: DescribedOperation[] = [
  {
    ...described,
    id: 'deleteThing',
    method: 'DELETE',
    path: '/things/{id}',
    input: { params: z.object({ id: z.uuid() }) },
    output: null,
    status: 204,
    sideEffects: ['delete'],
    examples: { params: { id: '3f1c1f0e-8a43-4a39-9d0e-2b1f7f6c9a10' } },
  },
  {
    ...described,
    id: 'downloadThing',
    method: 'GET',
    path: '/things/{id}/pdf',
    input: { params: z.object({ id: z.uuid() }) },
    output: null,
    produces: [
      {
        mediaType: 'application/pdf',
        render: async () => {
          throw new Error('not rendered here');
        },
      },
    ],
    status: 200,
    sideEffects: ['none'],
    dryRun: false,
    idempotencyKey: 'none',
    examples: {},
  },
];
// Plain JSON, references resolved; `any` keeps the lookups short.
const doc: any = await SwaggerParser.dereference(buildOpenApiDocument(synthetic, { publicBaseUrl: BASE }) as never);
const download = operationOf(registry.byId('downloadDocument')!);
const upload = operationOf(registry.byId('uploadDocument')!);

describe('OpenAPI for the shapes outside JSON: a 204, a binary representation, a stored file, a multipart upload', () => {
  it('a 204 has no content', () => {
    expect(doc.paths['/things/{id}'].delete.responses['204']).toEqual({ description: 'No content.' });
  });

  it('a binary representation is outside the envelope and has no example', () => {
    const success = doc.paths['/things/{id}/pdf'].get.responses['200'];
    expect(Object.keys(success.content)).toEqual(['application/pdf']);
    expect(success.content['application/pdf']).toEqual({ schema: { type: 'string', contentMediaType: 'application/pdf' } });
  });

  it('a download is the file outside the envelope, with no example, its headers, If-None-Match and a 304', () => {
    const success = download.responses['200'];
    expect(Object.keys(success.content)).toEqual(['application/pdf', 'image/jpeg', 'image/png', 'image/heic', 'image/heif', 'image/tiff', 'application/xml']);
    expect(success.content['application/pdf']).toEqual({ schema: { type: 'string', format: 'binary' } });
    expect(Object.keys(success.headers)).toEqual(expect.arrayContaining(['ETag', 'Content-Disposition', 'Content-Length']));
    expect(download.responses['304'].content).toBeUndefined();
    const ifNoneMatch = download.parameters.find((p: any) => p.name === 'If-None-Match');
    expect(ifNoneMatch.in).toBe('header');
    expect(ifNoneMatch.required).toBeUndefined();
  });

  it('an upload is multipart with a binary file part and the text fields, no example, and answers 413 and 415', () => {
    const media = upload.requestBody.content['multipart/form-data'];
    expect(media.example).toBeUndefined();
    expect(media.schema.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(media.schema.properties.file.description).toContain(String(20 * 1024 * 1024));
    expect(media.schema.properties.description).toMatchObject({ type: 'string', maxLength: 1000 });
    expect(media.schema.required).toEqual(['file']);
    expect(media.encoding.file.contentType).toBe('application/pdf, image/jpeg, image/png, image/heic, image/heif, image/tiff, application/xml');
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(['413', '415']));
    expect(operationOf(registry.byId('uploadDocument')!, full).responses['201'].content['application/json'].example.data).toMatchObject({
      content_type: 'application/pdf',
    });
  });
});
