import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { API_VERSION } from '../domain/kernel/version.ts';
import { EVENT_CATALOG, EVENT_TYPES, eventEnvelopeSchemaFor, type EventType } from '../domain/kernel/events.ts';
import { ERROR_CODES, type ErrorCode } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG, ErrorBody } from '../registry/error-catalog.ts';
import { IDEMPOTENCY_KEY_CHARS, IDEMPOTENCY_KEY_MAX } from '../registry/invoke.ts';
import { ResponseMeta } from '../registry/http/envelope.ts';
import { SIGNATURE_HEADER } from '../domain/webhooks/signature-header.ts';
import { errorExample, eventExample, requestBodyExample, responseExample } from './examples.ts';
import { EVENTS_TAG, groupInfo, groupsInUse } from './groups.ts';
import { objectProperties, toJsonSchema, type JsonSchema, type SchemaIo } from './json-schema.ts';
import {
  API_PREFIX,
  errorsByStatus,
  isPublic,
  isWrite,
  requestContentType,
  requiredScopes,
  responseMediaTypes,
  type DescribedOperation,
} from './operation-traits.ts';

/**
 * The OpenAPI 3.1 document (spec Endpoints 9-10), generated from the operation declarations and
 * the event catalogue. Nothing here names an operation: a new registry entry appears by itself.
 */

export type OpenApiDocument = JsonSchema & { openapi: '3.1.0'; paths: Record<string, Record<string, JsonSchema>> };

export interface OpenApiOptions {
  /** PUBLIC_BASE_URL: the configured canonical origin, never a request's Host header. */
  publicBaseUrl: string;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const BEARER = 'bearerAuth';

const HEADERS = {
  'X-Request-Id': { description: 'Identifies the request; equals meta.request_id or error.request_id.', schema: { type: 'string' } },
  'Service-Version': { description: 'The API version that answered.', schema: { type: 'string' }, example: API_VERSION },
  'Idempotent-Replayed': {
    description: '`true` when the stored result of an earlier request with the same Idempotency-Key is replayed.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': { description: 'Seconds to wait before the next request.', schema: { type: 'integer' }, example: 60 },
  'WWW-Authenticate': { description: 'The bearer authentication challenge.', schema: { type: 'string' } },
} as const;
const headerRefs = (...names: (keyof typeof HEADERS)[]): JsonSchema =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Collects named schemas from every conversion, refusing two different schemas under one name. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  /** Error codes some response refers to; only those get an example component. */
  readonly errorCodes = new Set<ErrorCode>();

  convert(schema: z.ZodType, io: SchemaIo, nameHint: string): JsonSchema {
    const converted = toJsonSchema(schema, io, nameHint);
    for (const [name, def] of Object.entries(converted.defs)) this.add(name, def);
    return converted.schema;
  }

  add(name: string, schema: JsonSchema): void {
    const existing = this.schemas[name];
    if (existing && !isDeepStrictEqual(existing, schema)) throw new Error(`OpenAPI: two different schemas are both named ${name}`);
    this.schemas[name] = schema;
  }
}

export function buildOpenApiDocument(operations: readonly DescribedOperation[], options: OpenApiOptions): OpenApiDocument {
  const components = new Components();
  components.add('Error', components.convert(ErrorBody, 'output', 'Error'));
  components.add('ResponseMeta', components.convert(ResponseMeta, 'output', 'ResponseMeta'));

  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, components);
  }

  const tags = groupsInUse(operations).map((group) => ({ name: group, 'x-displayName': groupInfo(group).title, description: groupInfo(group).description }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Accounting Service API',
      version: API_VERSION,
      summary: 'Multi-company bookkeeping: companies, webhooks and their signed event deliveries.',
      description: INFO_DESCRIPTION,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: `${options.publicBaseUrl}${API_PREFIX}`, description: 'Canonical base URL (PUBLIC_BASE_URL)' }],
    security: [{ [BEARER]: [] }],
    tags: [...tags, { name: EVENTS_TAG.name, 'x-displayName': EVENTS_TAG.title, description: EVENTS_TAG.description }],
    paths,
    webhooks: Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: eventOperation(type, components) }])),
    components: {
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key (sk_test_… or sk_live_…)',
          description:
            'An API key as a bearer token. Each operation lists the scope it needs; a key lacking it gets 403 INSUFFICIENT_SCOPE.',
        },
      },
      headers: HEADERS,
      schemas: components.schemas,
      examples: errorExampleComponents(components.errorCodes),
    },
  };
}

const INFO_DESCRIPTION = [
  'A multi-company bookkeeping service. Authenticate with `Authorization: Bearer <API_KEY>`; a `test` key reaches sandbox companies only, a `live` key live ones.',
  '',
  'Every JSON success body is `{ data, meta }`: `meta.request_id`, `meta.api_version`, `meta.pagination` (`next_cursor`, `has_more`) on cursor lists and `meta.audit` on writes. Deletes answer a bare 204.',
  'Every failure is `{ error: { code, message, status, request_id, recovery_hint, docs_url, valid_alternatives } }` (see the Error schema); `recovery_hint` says what to do next.',
  '',
  'Writes that take an `Idempotency-Key` header replay the stored result for a repeated key. Operations with `x-dry-run-supported: true` accept `?dry_run=true`: every check runs, nothing is written.',
  'Extensions on each operation: `x-action-risk` (L0 read-only … L3 irreversible), `x-idempotent`, `x-reversible`, `x-dry-run-supported`, `x-openai-isConsequential`.',
].join('\n');

function operationObject(op: DescribedOperation, components: Components): JsonSchema {
  const operation: JsonSchema = {
    operationId: op.id,
    tags: [op.group],
    summary: op.summary,
    description: op.description,
    security: isPublic(op) ? [] : [{ [BEARER]: requiredScopes(op) }],
    parameters: parameters(op, components),
  };
  const body = requestBody(op, components);
  if (body) operation.requestBody = body;
  operation.responses = { ...successResponse(op, components), ...errorResponses(op, components) };
  operation['x-action-risk'] = op.risk;
  operation['x-idempotent'] = op.idempotent;
  operation['x-reversible'] = op.reversible;
  operation['x-dry-run-supported'] = op.dryRun;
  operation['x-openai-isConsequential'] = isWrite(op);
  return operation;
}

function parameters(op: DescribedOperation, components: Components): JsonSchema[] {
  const result: JsonSchema[] = [];
  const examples = { path: op.examples.params ?? {}, query: op.examples.query ?? {} } as Record<'path' | 'query', Record<string, unknown>>;
  const add = (location: 'path' | 'query', schema: z.ZodType | undefined) => {
    if (!schema) return;
    const converted = components.convert(schema, 'input', `${op.id}${location === 'path' ? 'Path' : 'Query'}Parameters`);
    for (const { name, schema: property, required } of objectProperties(converted)) {
      const { description, ...rest } = property;
      const parameter: JsonSchema = { name, in: location, required: location === 'path' || required, schema: rest };
      if (typeof description === 'string') parameter.description = description;
      if (examples[location][name] !== undefined) parameter.example = examples[location][name];
      result.push(parameter);
    }
  };
  add('path', op.input.params);
  add('query', op.input.query);
  if (op.dryRun) {
    result.push({
      name: 'dry_run',
      in: 'query',
      required: false,
      description: 'With `true`, run every check and return the would-be result with `meta.dry_run: true`; nothing is written.',
      schema: { type: 'boolean', default: false },
    });
  }
  if (op.idempotencyKey !== 'none') {
    result.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: op.idempotencyKey === 'required',
      description:
        'A unique key (e.g. a UUID) per logical request, kept 24 hours. Retrying with the same key replays the stored result; the same key with another body answers 422.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_CHARS },
      example: '3b9f6a52-0c7e-4d1b-9f2a-6c8e1d4b7a90',
    });
  }
  return result;
}

function requestBody(op: DescribedOperation, components: Components): JsonSchema | undefined {
  const mediaType = requestContentType(op);
  if (!op.input.body || !mediaType) return undefined;
  const content: JsonSchema = { schema: components.convert(op.input.body, 'input', `${op.id}Body`) };
  const example = requestBodyExample(op);
  if (example !== undefined) content.example = example;
  return { required: !op.input.body.safeParse(undefined).success, content: { [mediaType]: content } };
}

function successResponse(op: DescribedOperation, components: Components): JsonSchema {
  const headers = headerRefs('X-Request-Id', 'Service-Version', ...(op.idempotencyKey !== 'none' ? (['Idempotent-Replayed'] as const) : []));
  const mediaTypes = responseMediaTypes(op);
  if (mediaTypes.length === 0) return { [op.status]: { description: 'No content.', headers } };
  const content: JsonSchema = {};
  if (op.output) {
    const schema: JsonSchema = {
      type: 'object',
      properties: { data: components.convert(op.output, 'output', `${op.id}Data`), meta: ref('ResponseMeta') },
      required: ['data', 'meta'],
      additionalProperties: false,
    };
    const json: JsonSchema = { schema };
    const example = responseExample(op);
    if (example !== undefined) json.example = example;
    content['application/json'] = json;
  }
  // Binary representations are exempt from the envelope and carry no worked example (spec Endpoints 9-10).
  for (const representation of op.produces ?? []) {
    content[representation.mediaType] = { schema: { type: 'string', contentMediaType: representation.mediaType } };
  }
  const description =
    mediaTypes.length > 1
      ? `${op.summary}. The media type follows the Accept header: ${mediaTypes.map((type) => `\`${type}\``).join(', ')} (the first by default).`
      : op.summary;
  return { [op.status]: { description, headers, content } };
}

function errorResponses(op: DescribedOperation, components: Components): JsonSchema {
  const responses: JsonSchema = {};
  for (const [status, codes] of errorsByStatus(op)) {
    for (const code of codes) components.errorCodes.add(code);
    const headers = headerRefs(
      'X-Request-Id',
      'Service-Version',
      ...(codes.includes('RATE_LIMITED') ? (['Retry-After'] as const) : []),
      ...(codes.includes('UNAUTHENTICATED') ? (['WWW-Authenticate'] as const) : []),
    );
    responses[String(status)] = {
      description: codes.map((code) => `${code}: ${ERROR_CATALOG[code].message}`).join(' '),
      headers,
      content: { 'application/json': { schema: ref('Error'), examples: errorExamples(codes) } },
    };
  }
  return responses;
}

/** Each code's example body lives once under components.examples and is referenced per operation. */
const errorExamples = (codes: ErrorCode[]): JsonSchema =>
  Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]));

const errorExampleComponents = (used: ReadonlySet<ErrorCode>): JsonSchema =>
  Object.fromEntries(
    ERROR_CODES.filter((code) => used.has(code)).map((code) => [code, { summary: ERROR_CATALOG[code].recoveryHint, value: errorExample(code) }]),
  );

/** One webhook per event type: what we POST to a subscriber, and what its answers mean. */
function eventOperation(type: EventType, components: Components): JsonSchema {
  const entry = EVENT_CATALOG[type];
  const name = type.replace(/(^|[._])([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase());
  return {
    operationId: `receive${name}Event`,
    tags: [EVENTS_TAG.name],
    summary: type,
    description:
      `${entry.description} Delivered to webhooks subscribed to \`${type}\`` +
      `${entry.payroll ? ' whose key also holds payroll:read' : ''}. Verify ${SIGNATURE_HEADER} before trusting the body.`,
    security: [],
    parameters: [
      {
        name: SIGNATURE_HEADER,
        in: 'header',
        required: true,
        description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook secret>`.',
        schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}' },
        example: 't=1795341600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: components.convert(eventEnvelopeSchemaFor(type), 'output', `${name}Event`),
          example: eventExample(type),
        },
      },
    },
    responses: {
      '200': { description: 'Any 2xx answer acknowledges the delivery.' },
      '410': { description: 'Gone: the webhook is disabled and receives no further deliveries.' },
    },
  };
}
