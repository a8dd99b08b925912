import { errorsByStatus } from '../registry/errors-of.ts';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { API_VERSION } from '../domain/kernel/version.ts';
import { EVENT_CATALOG, EVENT_TYPES, EventType, eventEnvelopeSchemaFor } from '../domain/events/types.ts';
import { Event } from '../domain/events/schemas.ts';
import { Company } from '../domain/companies/schemas.ts';
import { CreatedWebhook, Delivery, DeliveryAttempt, Webhook } from '../domain/webhooks/schemas.ts';
import { PaginationMeta } from '../domain/kernel/pagination.ts';
import { AuditMeta } from '../domain/audit/append.ts';
import { CapabilityRecord } from '../domain/capabilities/record.ts';
import { shareParameters, shareSchemas, type NamedSchema } from './openapi-components.ts';
import { ERROR_CODES, type ErrorCode } from '../domain/kernel/errors.ts';
import { ERROR_CATALOG, ErrorBody } from '../registry/error-catalog.ts';
import { IDEMPOTENCY_KEY_CHARS, IDEMPOTENCY_KEY_MAX } from '../pipeline/invoke.ts';
import { ResponseMeta } from '../http/envelope.ts';
import { SIGNATURE_HEADER } from '../domain/webhooks/signature-header.ts';
import { errorExample, eventExample, requestBodyExample, responseExample } from './examples.ts';
import { EVENTS_TAG, groupInfo, groupsInUse, serviceSummary } from './groups.ts';
import { objectProperties, toJsonSchema, type JsonSchema, type SchemaIo } from './json-schema.ts';
import { API_PREFIX, isPublic, isWrite, requestContentType, requiredScopes, responseMediaTypes, type DescribedOperation } from './operation-traits.ts';
import { once } from '../domain/kernel/once.ts';
import { renderConnectionGuide } from './connect-guide.ts';

/**
 * The OpenAPI 3.1 document (spec Endpoints 9-10), generated from the operation declarations and
 * the event catalogue. Nothing here names an operation: a new registry entry appears by itself.
 */

export type OpenApiDocument = JsonSchema & { openapi: '3.1.0'; paths: Record<string, Record<string, JsonSchema>> };

export interface OpenApiOptions {
  /** PUBLIC_BASE_URL: the configured canonical origin, never a request's Host header. */
  publicBaseUrl: string;
  /**
   * Shared shapes as components with `$ref` (the default). `false` writes every schema, response
   * and parameter inline: the same content, about three times the size (the size test compares them).
   */
  share?: boolean;
}

/**
 * The served document's size budget: bytes of compact JSON per documented item (an operation or
 * an event type). Issue 29 asks for 2,500; with the shapes shared, what is left is content the
 * spec and the house rules keep (a worked example per JSON body, every description, each status
 * an operation answers), measured in docs/performance.md#openapijson-size. The budget holds that
 * line against growth; test/integration/discovery/openapi-size.test.ts checks the served document.
 */
export const OPENAPI_BYTES_PER_ITEM_MAX = 3_400;

/** What the budget divides by: the operations under `paths` and the event types under `webhooks`. */
export const openApiItemCount = (operations: readonly DescribedOperation[]): number => operations.length + EVENT_TYPES.length;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
/** `journal_entry.committed` → `JournalEntryCommitted`. */
const pascalCase = (text: string): string => text.replace(/(^|[._])([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase());
const BEARER = 'bearerAuth';

/**
 * Headers every response carries. OpenAPI has no document-wide response header, and naming them
 * on each of about 700 responses cost 17 KB (issue 29), so `info.description` says them once.
 */
const EVERY_RESPONSE_HEADERS = {
  'X-Request-Id': 'identifies the request; equals `meta.request_id` or `error.request_id`',
  'Service-Version': `the API version that answered (\`${API_VERSION}\`)`,
} as const;

/** Headers some responses carry, each a component referenced where it applies. */
const HEADERS = {
  'Idempotent-Replayed': {
    description: '`true` when the stored result of an earlier request with the same Idempotency-Key is replayed.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': { description: 'Seconds to wait before the next request.', schema: { type: 'integer' }, example: 60 },
  'WWW-Authenticate': { description: 'The bearer authentication challenge.', schema: { type: 'string' } },
  ETag: { description: 'A strong validator of the file (for documents, its SHA-256 in quotes); send it back in If-None-Match.', schema: { type: 'string' } },
  'Content-Disposition': {
    description: '`attachment` with the file name: `filename` (ASCII fallback) and `filename*` (UTF-8, RFC 5987).',
    schema: { type: 'string' },
  },
  'Content-Length': { description: 'Size of the file in bytes.', schema: { type: 'integer' } },
} as const;
const headerRefs = (...names: (keyof typeof HEADERS)[]): JsonSchema =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Collects named schemas from every conversion, refusing two different schemas under one name. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  readonly responses: Record<string, JsonSchema> = {};
  readonly parameters: Record<string, JsonSchema> = {};
  /** Error codes some response refers to; only those get an example component. */
  readonly errorCodes = new Set<ErrorCode>();

  constructor(readonly share: boolean) {}

  /** A response or parameter used by many operations: one component and a `$ref` when sharing. */
  shared(kind: 'responses' | 'parameters', name: string, object: JsonSchema): JsonSchema {
    if (!this.share) return object;
    const existing = this[kind][name];
    if (existing && !isDeepStrictEqual(existing, object)) throw new Error(`OpenAPI: two different ${kind} are both named ${name}`);
    this[kind][name] = object;
    return { $ref: `#/components/${kind}/${name}` };
  }

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
  const share = options.share ?? true;
  const components = new Components(share);
  components.add('Error', components.convert(ErrorBody, 'output', 'Error'));
  components.add('ResponseMeta', components.convert(ResponseMeta, 'output', 'ResponseMeta'));

  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, components);
  }

  const webhooks = Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: eventOperation(type, components) }]));
  const tags = groupsInUse(operations).map((group) => ({ name: group, 'x-displayName': groupInfo(group).title, description: groupInfo(group).description }));
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Accounting Service API',
      version: API_VERSION,
      summary: 'Multi-company bookkeeping: companies, webhooks and their signed event deliveries.',
      description: `${serviceSummary(operations)}\n\n${INFO_DESCRIPTION}\n\n## Connecting an agent\n\n${renderConnectionGuide(options.publicBaseUrl)}`,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: `${options.publicBaseUrl}${API_PREFIX}`, description: 'Canonical base URL (PUBLIC_BASE_URL)' }],
    security: [{ [BEARER]: [] }],
    tags: [...tags, { name: EVENTS_TAG.name, 'x-displayName': EVENTS_TAG.title, description: EVENTS_TAG.description }],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key (sk_test_… or sk_live_…)',
          description: 'An API key as a bearer token. Each operation lists the scope it needs; a key lacking it gets 403 INSUFFICIENT_SCOPE.',
        },
      },
      headers: HEADERS,
      ...(share && { parameters: components.parameters, responses: components.responses }),
      schemas: components.schemas,
      examples: errorExampleComponents(components.errorCodes, options.publicBaseUrl),
    },
  };
  return share ? (shareParameters(shareSchemas(document, namedSchemas())) as OpenApiDocument) : document;
}

/**
 * The shapes the document names (rule 1 of shareSchemas): the envelope's parts, the resources,
 * each event type's payload and object, and the primitives every resource repeats.
 */
const namedSchemas = once((): NamedSchema[] => {
  const named: [string, z.ZodType][] = [
    ['Uuid', z.uuid()],
    ['DateTime', z.iso.datetime()],
    ['Date', z.iso.date()],
    ['Integer', z.number().int()],
    ['PaginationMeta', PaginationMeta],
    ['AuditMeta', AuditMeta],
    ['EventType', EventType],
    ['Company', Company],
    ['Webhook', Webhook],
    ['CreatedWebhook', CreatedWebhook],
    ['Delivery', Delivery],
    ['DeliveryAttempt', DeliveryAttempt],
    ['Event', Event],
    ['CapabilityRecord', CapabilityRecord],
  ];
  const entries = named.map(([name, schema]) => ({ name, schema: toJsonSchema(schema, 'output', name).schema }));
  const taken = new Set(entries.map((entry) => entry.name));
  for (const type of EVENT_TYPES) {
    const family = pascalCase(type.split('.')[0] as string);
    // An event's object is its resource's public schema: named after it, unless a different shape has that name.
    const objectName = taken.has(family) ? `${family}Object` : family;
    const envelope = toJsonSchema(eventEnvelopeSchemaFor(type), 'output', type).schema as {
      properties: Record<string, JsonSchema & { properties: Record<string, JsonSchema> }>;
    };
    entries.push(
      { name: objectName, schema: toJsonSchema(EVENT_CATALOG[type].object, 'output', family).schema },
      // The parts every event type's envelope repeats.
      { name: `${family}EventData`, schema: envelope.properties.data! },
      { name: 'EventId', schema: envelope.properties.id! },
      { name: 'PreviousAttributes', schema: envelope.properties.data!.properties.previous_attributes! },
    );
  }
  // One name per shape: types of a family share their object and data schemas, so keep the first name.
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = JSON.stringify(entry.schema);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
});

const INFO_DESCRIPTION = [
  'Authenticate with `Authorization: Bearer <API_KEY>` or an OAuth access token (Connecting an agent, below); a `test` key reaches sandbox companies only, a `live` key live ones.',
  '',
  'Every JSON success body is `{ data, meta }`: `meta.request_id`, `meta.api_version`, `meta.pagination` (`next_cursor`, `has_more`) on cursor lists and `meta.audit` on writes. Deletes answer a bare 204.',
  'Every failure is `{ error: { code, message, status, request_id, recovery_hint, docs_url, valid_alternatives } }` (see the Error schema); `recovery_hint` says what to do next.',
  '',
  'Writes that take an `Idempotency-Key` header replay the stored result for a repeated key. Operations with `x-dry-run-supported: true` accept `?dry_run=true`: every check runs, nothing is written.',
  `Every response carries the headers ${Object.entries(EVERY_RESPONSE_HEADERS)
    .map(([name, meaning]) => `\`${name}\` (${meaning})`)
    .join(' and ')}.`,
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
    result.push(
      components.shared('parameters', 'DryRun', {
        name: 'dry_run',
        in: 'query',
        required: false,
        description: 'With `true`, run every check and return the would-be result with `meta.dry_run: true`; nothing is written.',
        schema: { type: 'boolean', default: false },
      }),
    );
  }
  if (op.binaryResponse) {
    result.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag of a copy you hold; when it is still current the answer is 304 with no body.',
      schema: { type: 'string' },
    });
  }
  if (op.idempotencyKey !== 'none') {
    const required = op.idempotencyKey === 'required';
    result.push(
      components.shared('parameters', required ? 'IdempotencyKeyRequired' : 'IdempotencyKey', {
        name: 'Idempotency-Key',
        in: 'header',
        required,
        description:
          'A unique key (e.g. a UUID) per logical request, kept 24 hours. Retrying with the same key replays the stored result; the same key with another body answers 422.',
        schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_CHARS },
        example: '3b9f6a52-0c7e-4d1b-9f2a-6c8e1d4b7a90',
      }),
    );
  }
  return result;
}

function requestBody(op: DescribedOperation, components: Components): JsonSchema | undefined {
  const mediaType = requestContentType(op);
  if (!mediaType) return undefined;
  if (op.input.file) return multipartBody(op, components);
  if (!op.input.body) return undefined;
  const content: JsonSchema = { schema: components.convert(op.input.body, 'input', `${op.id}Body`) };
  const example = requestBodyExample(op);
  if (example !== undefined) content.example = example;
  return { required: !op.input.body.safeParse(undefined).success, content: { [mediaType]: content } };
}

/**
 * A file upload: the file part as a binary string beside the text fields, with no example (spec
 * Endpoints 10). The accepted media types go in the part's encoding; the limit in its description.
 */
function multipartBody(op: DescribedOperation, components: Components): JsonSchema {
  const file = op.input.file!;
  const fields = op.input.body ? components.convert(op.input.body, 'input', `${op.id}Fields`) : { type: 'object', properties: {} };
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      [file.field]: { type: 'string', format: 'binary', description: `${file.description} At most ${file.maxBytes} bytes.` },
      ...(fields.properties as JsonSchema),
    },
    required: [file.field, ...((fields.required as string[] | undefined) ?? [])],
    additionalProperties: false,
  };
  return { required: true, content: { 'multipart/form-data': { schema, encoding: { [file.field]: { contentType: file.contentTypes.join(', ') } } } } };
}

/** What a JSON success says beside the operation's own summary, by status. */
const SUCCESS_DESCRIPTION: Record<DescribedOperation['status'], string> = {
  200: 'OK.',
  201: 'Created.',
  202: 'Accepted: the work continues as an operation; poll getOperation.',
  204: 'No content.',
};

function successResponse(op: DescribedOperation, components: Components): JsonSchema {
  const headers = op.idempotencyKey !== 'none' ? { headers: headerRefs('Idempotent-Replayed') } : {};
  const mediaTypes = responseMediaTypes(op);
  if (mediaTypes.length === 0) return { [op.status]: { description: SUCCESS_DESCRIPTION[204], ...headers } };
  if (op.binaryResponse) {
    // Files are exempt from the envelope and carry no worked example (spec Endpoints 9-10).
    const binary = { schema: { type: 'string', format: 'binary' } };
    const fileHeaders = { ...headers.headers, ...headerRefs('Content-Disposition', 'Content-Length', 'ETag') };
    return {
      [op.status]: {
        description: `${op.summary}: the file itself, no envelope.`,
        headers: fileHeaders,
        content: Object.fromEntries(op.binaryResponse.contentTypes.map((type) => [type, binary])),
      },
      '304': { description: 'Not modified: If-None-Match named the current ETag; no body.', headers: headerRefs('ETag') },
    };
  }
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
  // The operation's summary is said once, on the operation; the response says only what it adds.
  const description =
    mediaTypes.length > 1
      ? `The media type follows the Accept header: ${mediaTypes.map((type) => `\`${type}\``).join(', ')} (the first by default).`
      : SUCCESS_DESCRIPTION[op.status];
  return { [op.status]: { description, ...headers, content } };
}

function errorResponses(op: DescribedOperation, components: Components): JsonSchema {
  const responses: JsonSchema = {};
  for (const [status, codes] of errorsByStatus(op)) {
    for (const code of codes) components.errorCodes.add(code);
    const headers = [
      ...(codes.includes('RATE_LIMITED') ? (['Retry-After'] as const) : []),
      ...(codes.includes('UNAUTHENTICATED') ? (['WWW-Authenticate'] as const) : []),
    ];
    // The same codes always make the same response, so each combination is one component.
    responses[String(status)] = components.shared('responses', codes.map((code) => pascalCase(code.toLowerCase())).join('Or'), {
      description: codes.map((code) => `${code}: ${ERROR_CATALOG[code].message}`).join(' '),
      ...(headers.length > 0 && { headers: headerRefs(...headers) }),
      content: { 'application/json': { schema: ref('Error'), examples: errorExamples(codes) } },
    });
  }
  return responses;
}

/** Each code's example body lives once under components.examples and is referenced per operation. */
const errorExamples = (codes: ErrorCode[]): JsonSchema => Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]));

const errorExampleComponents = (used: ReadonlySet<ErrorCode>, publicBaseUrl: string): JsonSchema =>
  Object.fromEntries(ERROR_CODES.filter((code) => used.has(code)).map((code) => [code, { value: errorExample(code, publicBaseUrl) }]));

/**
 * A type's payload schema. Shared: the general Event (every field, closed) narrowed by the type's
 * own `type` and `data` — the same constraint as the type's full envelope, which the inline
 * document spells out, without repeating the five fields every type has.
 */
function eventSchema(type: EventType, components: Components): JsonSchema {
  const envelope = components.convert(eventEnvelopeSchemaFor(type), 'output', `${pascalCase(type)}Event`);
  if (!components.share) return envelope;
  components.add('Event', components.convert(Event, 'output', 'Event'));
  const properties = envelope.properties as Record<string, JsonSchema>;
  return { allOf: [{ $ref: `#/components/schemas/Event` }], properties: { type: properties.type, data: properties.data } };
}

/** One webhook per event type: what we POST to a subscriber, and what its answers mean. */
function eventOperation(type: EventType, components: Components): JsonSchema {
  const entry = EVENT_CATALOG[type];
  const name = pascalCase(type);
  return {
    operationId: `receive${name}Event`,
    tags: [EVENTS_TAG.name],
    summary: type,
    description: `${entry.description}${entry.payroll ? ' Subscribing to it needs payroll:read as well.' : ''}`,
    security: [],
    parameters: [
      components.shared('parameters', 'Signature', {
        name: SIGNATURE_HEADER,
        in: 'header',
        required: true,
        description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook secret>`. Verify it before trusting the body.',
        schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}' },
        example: 't=1795341600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
      }),
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: eventSchema(type, components),
          example: eventExample(type),
        },
      },
    },
    responses: {
      '200': components.shared('responses', 'EventAcknowledged', { description: 'Any 2xx answer acknowledges the delivery.' }),
      '410': components.shared('responses', 'EventReceiverGone', { description: 'Gone: the webhook is disabled and receives no further deliveries.' }),
    },
  };
}
