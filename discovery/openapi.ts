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
import { EVENTS_TAG, groupInfo, groupsInUse, serviceIntroduction, serviceOneLine } from './groups.ts';
import { objectProperties, toJsonSchema, type JsonSchema, type SchemaIo } from './json-schema.ts';
import {
  API_PREFIX,
  isPublic,
  languageHelp,
  multilingualRepresentation,
  requestContentType,
  requiredScopes,
  responseMediaTypes,
  type DescribedOperation,
} from './operation-traits.ts';
import { once } from '../domain/kernel/once.ts';
import { connectionGuide, renderConnectionGuide } from './connect-guide.ts';
import { DISCOVERY_PATHS } from './discovery-paths.ts';
import { IDEMPOTENT_REPLAYED_HEADER, REQUEST_ID_HEADER, SERVICE_VERSION_HEADER } from '../http/response-headers.ts';

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
  /** Which worked examples the document carries (OPENAPI_EXAMPLES); `contract` unless said. */
  examples?: OpenApiExamples;
}

/**
 * The two documents one builder writes (issue 29: at most 2,500 bytes per item served).
 * - `contract`, served as openapi.json: every path, parameter, schema, status and error code, with
 *   the worked examples spec Endpoints 10 asks for, of each JSON request body and 200 response.
 * - `all`, served as openapi.json?examples=all and rendered by /docs: the same document with a
 *   worked example of every body the service sends besides (201 and 202 answers, each error code,
 *   each event payload), about 45 % larger.
 */
export const OPENAPI_EXAMPLES = ['contract', 'all'] as const;
export type OpenApiExamples = (typeof OPENAPI_EXAMPLES)[number];

/** Where each document is served, relative to PUBLIC_BASE_URL. */
export const openApiPath = (examples: OpenApiExamples): string =>
  examples === 'contract' ? DISCOVERY_PATHS.openapi : `${DISCOVERY_PATHS.openapi}?examples=${examples}`;

/**
 * The served document's size budget (issue 29): bytes of compact JSON per documented item (an
 * operation or an event type) of openapi.json, the `contract` document. A new operation that
 * does not fit makes room rather than raising it; docs/performance.md#openapijson-size says where
 * the bytes go, and test/integration/discovery/openapi-size.test.ts checks the served document.
 */
export const OPENAPI_BYTES_PER_ITEM_MAX = 2_500;

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
  [REQUEST_ID_HEADER]: 'identifies the request; equals `meta.request_id` or `error.request_id`',
  [SERVICE_VERSION_HEADER]: `the API version that answered (\`${API_VERSION}\`)`,
} as const;

/** Response headers `info` documents rather than a response: those above and the replay marker. */
export const RESPONSE_HEADERS_IN_INFO: readonly string[] = [...Object.keys(EVERY_RESPONSE_HEADERS), IDEMPOTENT_REPLAYED_HEADER];

/** Headers some responses carry, each a component referenced where it applies. */
const HEADERS = {
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

  constructor(
    readonly share: boolean,
    /** Whether every body gets its example, or only those spec Endpoints 10 asks for. */
    readonly allExamples: boolean,
  ) {}

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
  const components = new Components(share, options.examples === 'all');
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
      summary: serviceOneLine(operations),
      description: `${serviceIntroduction(operations)}\n\n${INFO_DESCRIPTION}\n\n## Connecting an agent\n\n${connectionText(options.publicBaseUrl, components.allExamples)}`,
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
      ...(components.errorCodes.size > 0 && { examples: errorExampleComponents(components.errorCodes, options.publicBaseUrl) }),
    },
  };
  return share ? (shareParameters(shareSchemas(document, namedSchemas())) as OpenApiDocument) : document;
}

/**
 * The connection guide: in full in the document /docs renders; in openapi.json its summary and
 * where the steps are (llms.txt carries them too), which spares 1.5 KB of the byte budget.
 */
function connectionText(base: string, full: boolean): string {
  if (full) return renderConnectionGuide(base);
  return `${connectionGuide(base).summary} The steps, with their URLs: ${base}${DISCOVERY_PATHS.llmsTxt}, ${base}${openApiPath('all')} and ${base}${DISCOVERY_PATHS.docsPage}.`;
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

/**
 * Statuses an operation answers whatever it does: a missing or bad key (401), a key without the
 * scope (403), the rate limit (429) and the server's own faults (5xx). As in Stripe's and GitHub's
 * descriptions, they are not keyed one by one on every operation: its `default` response names
 * each code with its status (issue 29: about 300 references, 11 KB). Statuses that depend on the
 * operation (400, 404, 406, 409, 413, 415, 422) keep their own keys.
 */
export const isAnsweredByAnyOperation = (status: number): boolean => status === 401 || status === 403 || status === 429 || status >= 500;

/** The key under `responses` that documents an error status: its own, or `default`. */
export const errorResponseKey = (status: number): string => (isAnsweredByAnyOperation(status) ? 'default' : String(status));

/** What an authenticated operation that uses the database answers as `default`: one component, `Default`. */
const DEFAULT_CODES: readonly ErrorCode[] = ['UNAUTHENTICATED', 'INSUFFICIENT_SCOPE', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/** `422 IDEMPOTENCY_KEY_REUSED`: a code after its status, as prose names it. */
const statusThenCode = (code: ErrorCode): string => `${ERROR_CATALOG[code].status} ${code}`;

const INFO_DESCRIPTION = [
  'Authenticate with `Authorization: Bearer <API_KEY>` or an OAuth access token (Connecting an agent, below); a `test` key reaches sandbox companies only, a `live` key live ones.',
  '',
  'Every JSON success body is `{ data, meta }`: `meta.request_id`, `meta.api_version`, `meta.pagination` (`next_cursor`, `has_more`) on cursor lists and `meta.audit` on writes. Deletes answer a bare 204.',
  'Every failure is `{ error: { code, message, status, request_id, recovery_hint, docs_url, valid_alternatives } }` (see the Error schema); `recovery_hint` says what to do next.',
  '',
  `Writes that take an \`Idempotency-Key\` header replay the stored result for a repeated key; a replay carries the header \`${IDEMPOTENT_REPLAYED_HEADER}: true\`. ` +
    `The same key with another request answers ${statusThenCode('IDEMPOTENCY_KEY_REUSED')}, and while the first is still running ${statusThenCode('IDEMPOTENCY_IN_PROGRESS')}. ` +
    'Operations with `x-dry-run-supported: true` accept `?dry_run=true`: every check runs, nothing is written.',
  `Every response carries the headers ${Object.entries(EVERY_RESPONSE_HEADERS)
    .map(([name, meaning]) => `\`${name}\` (${meaning})`)
    .join(' and ')}.`,
  'Extensions on each operation: `x-action-risk` (L0 read-only … L3 irreversible), `x-idempotent`, `x-reversible`, `x-dry-run-supported`. GPT Actions may take each GET as not consequential and every other method as consequential, their default without `x-openai-isConsequential`.',
  `What any operation may answer whatever it does (${DEFAULT_CODES.map(statusThenCode).join(', ')}) is its \`default\` response, which names each; the statuses that depend on the operation have their own.`,
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
  // No `x-openai-isConsequential`: absent, GPT Actions take a GET as not consequential and every
  // other method as consequential, which is what isWrite says of each operation (info says so once).
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
      // `required: false` is OpenAPI's default for a query parameter: said only when true.
      const parameter: JsonSchema = { name, in: location, ...((location === 'path' || required) && { required: true }), schema: rest };
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
        description: 'With `true`, run every check and return the would-be result with `meta.dry_run: true`; nothing is written.',
        schema: { type: 'boolean', default: false },
      }),
    );
  }
  const languages = acceptLanguage(op, components);
  if (languages) result.push(languages);
  if (op.binaryResponse) {
    result.push({
      name: 'If-None-Match',
      in: 'header',
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
        ...(required && { required }),
        description:
          'A unique key (e.g. a UUID) per logical request, kept 24 hours. Retrying with the same key replays the stored result; the same key with another body answers 422.',
        schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_CHARS },
        example: '3b9f6a52-0c7e-4d1b-9f2a-6c8e1d4b7a90',
      }),
    );
  }
  return result;
}

/** Accept-Language, where a representation comes in several languages (a report PDF). */
function acceptLanguage(op: DescribedOperation, components: Components): JsonSchema | undefined {
  const representation = multilingualRepresentation(op);
  if (!representation) return undefined;
  const [first, second] = representation.languages;
  return components.shared('parameters', 'AcceptLanguage', {
    name: 'Accept-Language',
    in: 'header',
    description: languageHelp(op),
    schema: { type: 'string' },
    example: second ?? first,
  });
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
  const mediaTypes = responseMediaTypes(op);
  if (mediaTypes.length === 0) return { [op.status]: { description: SUCCESS_DESCRIPTION[204] } };
  if (op.binaryResponse) {
    // Files are exempt from the envelope and carry no worked example (spec Endpoints 9-10).
    const binary = { schema: { type: 'string', format: 'binary' } };
    const fileHeaders = headerRefs('Content-Disposition', 'Content-Length', 'ETag');
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
    // A 200's example is the contract's (spec Endpoints 10); a 201's or 202's only in the full document.
    if (example !== undefined && (op.status === 200 || components.allExamples)) json.example = example;
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
  return { [op.status]: { description, content } };
}

function errorResponses(op: DescribedOperation, components: Components): JsonSchema {
  const responses: JsonSchema = {};
  const anyOperation: ErrorCode[] = [];
  for (const [status, codes] of errorsByStatus(op)) {
    if (isAnsweredByAnyOperation(status)) anyOperation.push(...codes);
    else responses[String(status)] = errorResponse(codes, components);
  }
  if (anyOperation.length > 0) {
    const name = isDeepStrictEqual(anyOperation, DEFAULT_CODES) ? 'Default' : undefined;
    responses.default = errorResponse(anyOperation, components, { name, withStatus: true });
  }
  return responses;
}

/**
 * One error response: its codes, each with its message (and status when they differ), the headers
 * they bring and, in the full document, each code's example. The same codes always make the same
 * response, so each combination is one component; the common one-code answer of a status (the
 * catalogue's first code at it, e.g. 401 UNAUTHENTICATED) is named by the status, which about 400
 * references repeat.
 */
function errorResponse(codes: ErrorCode[], components: Components, options: { name?: string; withStatus?: boolean } = {}): JsonSchema {
  if (components.allExamples) for (const code of codes) components.errorCodes.add(code);
  const name = options.name ?? errorResponseName(codes);
  // Under `default`, or when codes differ in status, each code says its own.
  const namesStatus = options.withStatus || new Set(codes.map((code) => ERROR_CATALOG[code].status)).size > 1;
  const headers = [
    ...(codes.includes('RATE_LIMITED') ? (['Retry-After'] as const) : []),
    ...(codes.includes('UNAUTHENTICATED') ? (['WWW-Authenticate'] as const) : []),
  ];
  return components.shared('responses', name, {
    description: codes
      .map((code) => `${code}${namesStatus ? ` (${ERROR_CATALOG[code].status})` : ''}${saysWhy(code, codes) ? `: ${ERROR_CATALOG[code].message}` : '.'}`)
      .join(' '),
    ...(headers.length > 0 && { headers: headerRefs(...headers) }),
    content: { 'application/json': { schema: ref('Error'), ...(components.allExamples && { examples: errorExamples(codes) }) } },
  });
}

function errorResponseName(codes: ErrorCode[]): string {
  const [first] = codes as [ErrorCode];
  return codes.length === 1 && isFirstCodeOfStatus(first)
    ? String(ERROR_CATALOG[first].status)
    : codes.map((code) => pascalCase(code.toLowerCase())).join('Or');
}

/**
 * Whether a response's description gives the code's message: always, except an idempotency code
 * beside others, which about 30 responses would repeat while `info` explains both once.
 */
const saysWhy = (code: ErrorCode, codes: readonly ErrorCode[]): boolean => codes.length === 1 || !code.startsWith('IDEMPOTENCY_');

/** Whether no code before this one in the catalogue has its status. */
const isFirstCodeOfStatus = (code: ErrorCode): boolean =>
  ERROR_CODES.find((candidate) => ERROR_CATALOG[candidate].status === ERROR_CATALOG[code].status) === code;

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
          ...(components.allExamples && { example: eventExample(type) }),
        },
      },
    },
    responses: {
      '200': components.shared('responses', 'EventAcknowledged', { description: 'Any 2xx answer acknowledges the delivery.' }),
      '410': components.shared('responses', 'EventReceiverGone', { description: 'Gone: the webhook is disabled and receives no further deliveries.' }),
    },
  };
}
